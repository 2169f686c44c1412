// Package textenc tells, from the first bytes of an input the lab reads as
// UTF-8 text (a scenario, a gate, sweep or tune file, a trace), what else
// it is when it is not text: UTF-16 or UTF-32 (with or without a
// byte-order mark), gzip, or bytes that are not UTF-8. A reader refuses
// such input with one message saying what to do, instead of a cascade of
// errors from a parser reading the bytes as text.
package textenc
