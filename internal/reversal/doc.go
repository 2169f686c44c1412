// Package reversal counts the changes of direction of a sequence of
// limits: how often a controller that raised a limit then lowers it, or the
// reverse. The lab's convergence figures and the policies' bake-off both
// count them this way.
package reversal
