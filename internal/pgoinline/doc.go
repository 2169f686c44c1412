// Package pgoinline checks that the profile-guided build still inlines the
// lab's hot calls: the calls above the inlining budget that the profile in
// cmd/sim/default.pgo lets the compiler inline (it logs each one as
// "hot-budget check allows inlining for call CALLEE ... in function
// CALLER" under -gcflags=-d=pgodebug=1).
//
// The profile names a hot call by its caller, its callee and its line
// counted from the caller's first line, so an edit that adds or removes a
// line above a hot call moves the call out of the profile's reach: the
// outputs stay the same, the call stops being inlined, and the cost moves
// by less than the cost gate (bench/costgate_ir.sh) can see. The test
// lists the calls inlined this way in testdata/hot-inlines.txt and fails
// when one of them is no longer inlined; a call newly inlined is logged.
// After a change that loses one on purpose (or a regenerated profile,
// bench/pgo.sh), check the cost gate and rewrite the list:
//
//	go test ./internal/pgoinline -update
//
// The list belongs to the Go release it was made with (its first line);
// under another release the test skips, since the compiler's thresholds
// differ.
package pgoinline
