package sim

import "unsafe"

// identity is the world's table of job identity: accounts and projects,
// interned for the run, and the live batches. A batch is live from its first arrival until its
// last job is done with no grading job to follow; a later job with the same
// batch name starts a new batch. The world owns it because a grading job
// inherits its parent's project and batch; the recorder receives the keys and
// looks names up here, so that what is measured never feeds a decision.
type identity struct {
	accounts   []string
	accountIDs map[string]int32
	projects   []string
	projectIDs map[string]int32
	// The last account and project looked up, key and name (the name
	// beside the key, to be compared without a look-up).
	lastAccount, lastProject         int32
	lastAccountName, lastProjectName string
	// Live batches in slots, freed when they end. A live batch is found by
	// name through batchIDs, or without it when the source's batch names are
	// unique and a batch's jobs come one after another (uniqueNames): then
	// an arrival joins the previous arrival's batch or starts a new one.
	batches      slots[batchIdent]
	batchIDs     map[string]int32
	uniqueNames  bool
	lastArrived  int32 // slot of the last arrival's batch (not a grading job's), -1 none
	lastFinished int32 // slot of the last finished job's batch, -1 none
}

// batchIdent is one live batch: its name and its jobs not done yet.
type batchIdent struct {
	name string
	open int32
	live bool
}

func newIdentity() identity {
	return identity{accountIDs: map[string]int32{}, lastAccount: -1, projectIDs: map[string]int32{}, lastProject: -1, batchIDs: map[string]int32{}, lastArrived: -1, lastFinished: -1}
}

// account is the key of an account, added if new. Jobs come in batches of
// one account, so the last one is checked first.
func (id *identity) account(name string) int32 {
	if k := id.lastAccount; k >= 0 && sameString(id.lastAccountName, name) {
		return k
	}
	k, ok := id.accountIDs[name]
	if !ok {
		k = int32(len(id.accounts))
		id.accounts = append(id.accounts, name)
		id.accountIDs[name] = k
	}
	id.lastAccount, id.lastAccountName = k, name
	return k
}

// project is the key of a project, added if new (keys count up from 0 in
// order of first arrival). A batch's jobs share one, so the last one is
// checked first, as for accounts.
func (id *identity) project(name string) int32 {
	if k := id.lastProject; k >= 0 && sameString(id.lastProjectName, name) {
		return k
	}
	p, ok := id.projectIDs[name]
	if !ok {
		p = int32(len(id.projects))
		id.projectIDs[name] = p
		id.projects = append(id.projects, name)
	}
	id.lastProject, id.lastProjectName = p, name
	return p
}

// sameString is a == b, without a call to compare them when they share
// their bytes (a source's jobs of one batch share their names' strings).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// projectName is the name of the project with key p.
func (id *identity) projectName(p int32) string { return id.projects[p] }

// batchName is the name of the live batch in slot b.
func (id *identity) batchName(b int32) string { return id.batches.at(b).name }

// sameName is a == b, telling most different batch names apart by their
// last byte first (names counted up, as a generator's, differ there)
// rather than in a call to compare them.
func sameName(a, b string) bool {
	if len(a) != len(b) || len(a) > 0 && a[len(a)-1] != b[len(a)-1] {
		return false
	}
	return a == b
}

// arrive adds a job to its batch: the slot, and whether the batch is new. A
// grading job looks first at the batch of the job that just finished (its
// parent's); any other job at the previous arrival's. A live batch's name is
// its own, so these slots are checked before the map.
func (id *identity) arrive(batch string, grading bool) (slot int32, fresh bool) {
	hint := id.lastArrived
	if grading {
		hint = id.lastFinished
	}
	slot = hint
	var b *batchIdent
	if hint >= 0 {
		if h := id.batches.at(hint); h.live && sameName(h.name, batch) {
			b = h
		}
	}
	if b == nil && !id.uniqueNames {
		if s, ok := id.batchIDs[batch]; ok {
			slot, b = s, id.batches.at(s)
		}
	}
	if b == nil {
		slot, fresh = id.batches.take(), true
		b = id.batches.at(slot)
		*b = batchIdent{name: batch, live: true}
		if !id.uniqueNames {
			id.batchIDs[batch] = slot
		}
	}
	if !grading {
		id.lastArrived = slot
	}
	b.open++
	return slot, fresh
}

// finish marks a job of the batch in slot done; chained tells that a grading
// job follows it into the batch. It reports whether the batch ended.
func (id *identity) finish(slot int32, chained bool) bool {
	id.lastFinished = slot
	b := id.batches.at(slot)
	if b.open--; b.open > 0 || chained {
		return false
	}
	if !id.uniqueNames {
		delete(id.batchIDs, b.name)
	}
	id.batches.releaseAt(slot, b)
	return true
}
