// Package enum reads the lab's closed sets of words (formats, classes,
// controller names): a value is one of its set or refused with the list.
package enum
