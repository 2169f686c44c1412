// Package pareto finds the Pareto front of points on two figures: the
// points no other point beats on one figure without losing on the other.
// tune's front of evaluated settings (lab) and the report's trade-off
// figure of runs (report) are both this front.
package pareto
