package workloads

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// The generator's names: batches (a block at a time), accounts and
// projects.

// BatchName is the generator's name of its seq-th batch: "b" and the number
// zero-padded to seven digits (as fmt's %07d, without its cost per batch).
func BatchName(seq int) string {
	var buf [24]byte
	return string(appendBatchName(buf[:0], seq))
}

func appendBatchName(b []byte, seq int) []byte {
	b = append(b, 'b')
	if seq >= 0 {
		for d := 1_000_000; d > 1 && seq < d; d /= 10 {
			b = append(b, '0')
		}
	}
	return strconv.AppendInt(b, int64(seq), 10)
}

// batchName is BatchName(seq), cut from one string of nameBlock names from
// seq on: one allocation per block rather than per batch, and each name
// after the block's first is the one before it counted up in place.
func (g *Generator) batchName(seq int) string {
	k := seq - g.namesFrom
	if g.names == "" || k < 0 || k >= nameBlock {
		g.formatNames(seq)
		k = 0
	}
	if w := g.nameWidth; w > 0 {
		return g.names[k*w : k*w+w]
	}
	start := int32(0)
	if k > 0 {
		start = g.nameEnd[k-1]
	}
	return g.names[start:g.nameEnd[k]]
}

// formatNames formats the nameBlock names from seq on into g.names. When
// they all have the first one's width (no count passes a power of ten),
// each is the one before it copied and counted up, and nameWidth is set.
func (g *Generator) formatNames(seq int) {
	b := g.nameBuf[:0]
	var buf [24]byte
	name := appendBatchName(buf[:0], seq)
	w := len(name)
	if last := BatchName(seq + nameBlock - 1); seq >= 0 && len(last) == w {
		n := w * nameBlock
		if cap(b) < n {
			b = make([]byte, n)
		}
		b = b[:n]
		copy(b, name)
		if w == 8 { // seq below 10^7: a name is one word
			words := (*[8 * nameBlock]byte)(b) // n bytes: the stores need no bounds checks
			x := binary.LittleEndian.Uint64(words[:])
			for k := 1; k < nameBlock; k++ {
				x = nextBatchName8(x)
				binary.LittleEndian.PutUint64(words[8*k:], x)
			}
		} else {
			for i := w; i < n; i += w {
				copy(b[i:i+w], b[i-w:i])
				nextBatchName(b[i : i+w])
			}
		}
	} else {
		w = 0
		for i := range nameBlock {
			b = append(b, name...)
			g.nameEnd[i] = int32(len(b))
			if seq < 0 {
				name = appendBatchName(buf[:0], seq+i+1)
			} else {
				name = nextBatchName(name)
			}
		}
	}
	g.names, g.namesFrom, g.nameWidth, g.nameBuf = string(b), seq, w, b
}

// nextBatchName8 is nextBatchName on an 8-byte name read as a
// little-endian word (its last digit in the top byte), for a name that
// does not grow: not all nines.
func nextBatchName8(x uint64) uint64 {
	if byte(x>>56) != '9' {
		return x + 1<<56 // the last digit, nine names in ten
	}
	x = x&^(0xff<<56) | '0'<<56
	for k := 48; k >= 8; k -= 8 {
		if byte(x>>k) != '9' {
			return x + 1<<k
		}
		x = x&^(0xff<<k) | '0'<<k
	}
	return x
}

// nextBatchName turns name, BatchName(seq) for seq >= 0, into
// BatchName(seq+1) in place (growing it by a digit past all nines).
func nextBatchName(name []byte) []byte {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] != '9' {
			name[i]++
			return name
		}
		name[i] = '0'
	}
	name[1] = '1'
	return append(name, '0')
}

// hierarchyNames are the names of the accounts and of their projects
// (account-major), formatted once per run rather than once per batch.
func hierarchyNames(accounts, perAccount int) (acct, proj []string) {
	for a := 0; a < accounts; a++ {
		acct = append(acct, accountName(a))
		for p := 0; p < perAccount; p++ {
			proj = append(proj, projectName(a, p))
		}
	}
	return acct, proj
}

// accountName and projectName are the names the generator gives account
// a and its project p.
func accountName(a int) string    { return fmt.Sprintf("acct-%03d", a) }
func projectName(a, p int) string { return fmt.Sprintf("%s/p%02d", accountName(a), p) }
