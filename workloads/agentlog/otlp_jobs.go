// The OTLP reader's second half: span records sorted by trace are
// grouped into calls and tools per job, and jobs into sessions.

package agentlog

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// encode appends the node as a sort record's value.
func (n *otlpNode) encode(b []byte) []byte {
	e := enc{b}
	e.int(n.seq)
	e.str(n.id)
	e.str(n.parent)
	e.int(int64(n.kind))
	e.int(n.start)
	e.int(n.end)
	e.str(n.conv)
	e.str(n.agent)
	e.int(int64(n.file))
	e.int(int64(n.line))
	e.str(n.service)
	e.part(n.call, n.tool)
	return e.b
}

// part appends a call's or a tool's fields, after a byte saying which.
func (e *enc) part(c *Call, t *Tool) {
	switch {
	case c != nil:
		e.int(int64(kindCall))
		e.str(c.Model)
		e.str(c.Provider)
		for _, v := range []int{c.In, c.Out, c.CacheRead, c.CacheWrite, c.MaxTokens} {
			e.int(int64(v))
		}
	case t != nil:
		e.int(int64(kindTool))
		e.str(t.Name)
		f := int64(0)
		if t.Failed {
			f = 1
		}
		e.int(f)
	default:
		e.int(int64(kindOther))
	}
}

// part reads what enc.part wrote; start and end are the span's.
func (d *dec) part(start, end int64) (*Call, *Tool) {
	switch spanKind(d.int()) {
	case kindCall:
		c := &Call{Start: start, End: end, Model: d.str(), Provider: d.str()}
		for _, v := range []*int{&c.In, &c.Out, &c.CacheRead, &c.CacheWrite, &c.MaxTokens} {
			*v = int(d.int())
		}
		return c, nil
	case kindTool:
		return nil, &Tool{Start: start, End: end, Name: d.str(), Failed: d.int() == 1}
	}
	return nil, nil
}

func decodeNode(b []byte) (otlpNode, error) {
	d := dec{b: b}
	n := otlpNode{seq: d.int(), id: d.str(), parent: d.str(), kind: spanKind(d.int()), start: d.int(), end: d.int(),
		conv: d.str(), agent: d.str(), file: int(d.int()), line: int(d.int()), service: d.str()}
	n.call, n.tool = d.part(n.start, n.end)
	if d.bad {
		return n, errBadRun
	}
	return n, nil
}

// flush groups the spans into sessions: a call or tool belongs to its
// outermost invoke_agent ancestor; without one, to its conversation id;
// without that, to its trace. Sessions go to sink in the order of their
// groups' keys, each with its first span's input position (Session.order);
// then every problem, in input order.
func (r *otlpReader) flush(sink Sink) error {
	jobs := newSorter(r.dir, r.budget)
	defer jobs.close()
	trace := ""
	var nodes []otlpNode
	var err error
	if err = r.spans.each(func(k, v []byte) error {
		if string(k) != trace {
			if err := r.groupTrace(trace, nodes, jobs); err != nil {
				return err
			}
			trace, nodes = string(k), nodes[:0]
		}
		n, err := decodeNode(v)
		nodes = append(nodes, n)
		return err
	}); err == nil {
		err = r.groupTrace(trace, nodes, jobs)
	}
	if err == nil {
		err = r.buildSessions(jobs, sink)
	}
	if err != nil {
		return fmt.Errorf("OTLP import: %w", err)
	}
	return r.problems.each(func(_, v []byte) error {
		d := dec{b: v}
		p := &Problem{File: d.str(), Line: int(d.int()), Path: d.str(), Msg: d.str()}
		if d.bad {
			return errBadRun
		}
		sink.Skip(p)
		return nil
	})
}

// groupTrace files each call and tool of one trace's spans (in input
// order) under its job's key: a repeated span is reported and dropped.
func (r *otlpReader) groupTrace(trace string, nodes []otlpNode, jobs *sorter) error {
	if len(nodes) == 0 {
		return nil
	}
	index := make(map[string]int, len(nodes))
	keep := nodes[:0]
	for _, n := range nodes {
		if _, dup := index[n.id]; dup {
			r.addProblem(0, n.seq, problem(r.files[n.file], n.line, "spanId", "repeated span %s in trace %s", n.id, trace))
			continue
		}
		index[n.id] = len(keep)
		keep = append(keep, n)
	}
	nodes = keep
	r.breakCycles(trace, nodes, index)
	agentOf := make(map[int]int, len(nodes)) // node → its outermost agent node, -1 none
	var root func(i, depth int) int
	root = func(i, depth int) int {
		if a, ok := agentOf[i]; ok {
			return a
		}
		n := &nodes[i]
		a := -1
		if n.parent != "" && depth < 1000 {
			if p, ok := index[n.parent]; ok {
				a = root(p, depth+1)
			}
		}
		if a < 0 && n.kind == kindAgent {
			a = i
		}
		agentOf[i] = a
		return a
	}
	var key []byte
	var e enc
	for i := range nodes {
		n := &nodes[i]
		if n.call == nil && n.tool == nil {
			continue
		}
		gk, id, project, start := "", "", nonEmpty(n.service, "otlp"), int64(0)
		if a := root(i, 0); a >= 0 {
			an := &nodes[a]
			gk, start = "agent:"+trace+an.id, an.start
			id = an.conv
			if id == "" {
				id = trace + "/" + an.id
			}
			project = nonEmpty(an.agent, nonEmpty(an.service, project))
		} else if n.conv != "" {
			gk, id = "conv:"+n.conv, n.conv
		} else {
			gk, id = "trace:"+trace, trace
		}
		key = keyInt(keyStr(key[:0], gk), n.seq)
		e.b = e.b[:0]
		e.str(id)
		e.str(project)
		e.int(start)
		e.int(int64(n.file))
		e.int(int64(n.line))
		e.int(n.start)
		e.int(n.end)
		e.part(n.call, n.tool)
		if err := jobs.add(key, e.b); err != nil {
			return err
		}
	}
	return r.err
}

// breakCycles finds the spans whose parents lead back to themselves (a
// corrupt or hand-made export): each is reported and read without a
// parent, so that a cycle of agent spans does not merge their jobs into
// whichever the walk up the parents happens to end on.
func (r *otlpReader) breakCycles(trace string, nodes []otlpNode, index map[string]int) {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(nodes))
	var path []int
	var cut []int
	for i := range nodes {
		path = path[:0]
		j, root := i, false
		for state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			p, ok := index[nodes[j].parent]
			if nodes[j].parent == "" || !ok {
				root = true
				break
			}
			j = p
		}
		if !root && state[j] == onPath { // j's parents lead back to j: the path from j on is a cycle
			k := slices.Index(path, j)
			cycle := path[k:]
			for c, n := range cycle {
				ids := make([]string, 0, len(cycle)+1)
				for d := range len(cycle) + 1 {
					ids = append(ids, nodes[cycle[(c+d)%len(cycle)]].id)
				}
				m := &nodes[n]
				r.addProblem(0, m.seq, problem(r.files[m.file], m.line, "parentSpanId", "span %s's parents form a cycle (%s): read without a parent", m.id, strings.Join(ids, " → ")))
				cut = append(cut, n)
			}
		}
		for _, n := range path {
			state[n] = done
		}
	}
	for _, n := range cut {
		nodes[n].parent = ""
	}
}

// buildSessions makes a session of each job's records (in input order).
func (r *otlpReader) buildSessions(jobs *sorter, sink Sink) error {
	var s *Session
	var group []byte
	done := func() {
		if s == nil {
			return
		}
		if len(s.Calls) == 0 {
			r.addProblem(1, s.order, problem(s.Where, 0, "", "job %s: tool spans but no usable inference span", s.ID))
			return
		}
		if first := minStart(s.Calls); s.Start == 0 || s.Start > first {
			s.Start = first
		}
		slices.SortStableFunc(s.Calls, func(a, b Call) int { return cmp.Compare(a.Start, b.Start) })
		sink.Session(s)
	}
	err := jobs.each(func(k, v []byte) error {
		gk, pos := k[:len(k)-8], int64(binary.BigEndian.Uint64(k[len(k)-8:])^(1<<63))
		d := dec{b: v}
		id, project, start, file, line := d.str(), d.str(), d.int(), int(d.int()), int(d.int())
		cs, ce := d.int(), d.int()
		c, t := d.part(cs, ce)
		if d.bad || file < 0 || file >= len(r.files) {
			return errBadRun
		}
		if s == nil || !bytes.Equal(gk, group) {
			done()
			group = append(group[:0], gk...)
			s = &Session{ID: id, Project: project, Batch: baseName(r.files[file]), Start: start,
				Where: fmt.Sprintf("%s:%d", r.files[file], line), order: pos}
		}
		if c != nil {
			s.Calls = append(s.Calls, *c)
		} else if t != nil {
			s.Tools = append(s.Tools, *t)
		}
		return nil
	})
	if err == nil {
		done()
	}
	if err == nil {
		err = r.err
	}
	return err
}
