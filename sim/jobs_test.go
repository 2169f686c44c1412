package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// limitsWatch wraps a policy and checks, whenever the world can read its
// per-model limits (a sample falls between the policy's calls), that they
// are the ones the policy returned in its last plan: the world keeps the
// policy's slice rather than a copy, which holds only while the policy
// changes it inside Decide alone.
type limitsWatch struct {
	policies.Policy
	t      *testing.T
	w      *World
	last   []int // the last plan's limits, copied when Decide returned
	checks int
}

func (p *limitsWatch) check(where string) {
	p.t.Helper()
	if p.last == nil {
		return
	}
	p.checks++
	if len(p.w.limits) != len(p.last) {
		p.t.Fatalf("%s at %v: the world reads %d limits, the last plan gave %d", where, p.w.now().Duration(), len(p.w.limits), len(p.last))
	}
	for m, l := range p.last {
		if p.w.limits[m] != l {
			p.t.Fatalf("%s at %v: the world reads model %d's limit %d, the last plan gave %d", where, p.w.now().Duration(), m, p.w.limits[m], l)
		}
	}
}

func (p *limitsWatch) Enqueue(now time.Time, job policies.Job) {
	p.check("before Enqueue")
	p.Policy.Enqueue(now, job)
	p.check("after Enqueue")
}

func (p *limitsWatch) Finished(now time.Time, id policies.JobID, m policies.ModelID) {
	p.check("before Finished")
	p.Policy.Finished(now, id, m)
	p.check("after Finished")
}

func (p *limitsWatch) Decide(now time.Time, state policies.State, plan *policies.Plan) {
	p.check("before Decide")
	p.Policy.Decide(now, state, plan)
	if plan.Limits != nil {
		p.last = append(p.last[:0], plan.Limits...)
	}
}

// TestWorldLimitsArePlans: the limits the world reads (and the series
// records) are, between any two calls to the policy, those of its last
// plan, for every policy that keeps limits: fixed-lane, the scheduler
// under every controller, with and without the guards.
func TestWorldLimitsArePlans(t *testing.T) {
	type policyCase struct {
		name, policy string
		edit         func(*scenario.Scenario)
	}
	cases := []policyCase{{name: "fixed-lane", policy: "fixed-lane"}}
	for _, c := range policies.Controllers {
		cases = append(cases, policyCase{name: "scheduler-" + string(c), policy: "scheduler", edit: func(sc *scenario.Scenario) { sc.Policies.Scheduler.Controller = c }})
	}
	guarded := func(edit func(*scenario.Scenario)) func(*scenario.Scenario) {
		return func(sc *scenario.Scenario) {
			if edit != nil {
				edit(sc)
			}
			sc.Policies.Guards.MaxJobs = 40
		}
	}
	for _, c := range slices.Clone(cases) {
		cases = append(cases, policyCase{name: c.name + "-guarded", policy: c.policy, edit: guarded(c.edit)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := smallScenario(t, c.edit)
			pol, err := scenario.NewPolicy(c.policy, sc)
			if err != nil {
				t.Fatal(err)
			}
			watch := &limitsWatch{Policy: pol, t: t}
			w, err := NewWorld(sc, Options{Seed: 3, Policy: watch})
			if err != nil {
				t.Fatal(err)
			}
			watch.w = w
			if err := w.Run(); err != nil {
				t.Fatal(err)
			}
			watch.check("at the end")
			if watch.checks < 100 {
				t.Fatalf("only %d checks: the policy gave no limits, or the run was too short", watch.checks)
			}
		})
	}
}

// shortLimits is a policy whose plan's limits miss a model.
type shortLimits struct {
	policies.Policy
}

func (p shortLimits) Decide(now time.Time, state policies.State, plan *policies.Plan) {
	p.Policy.Decide(now, state, plan)
	plan.Limits = plan.Limits[:len(plan.Limits)-1]
}

// TestWorldRefusesShortLimits: a plan whose limits do not cover the
// catalogue stops the run with an error naming the policy.
func TestWorldRefusesShortLimits(t *testing.T) {
	sc := smallScenario(t, nil)
	pol, err := scenario.NewPolicy("fixed-lane", sc)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(sc, Options{Seed: 3, Policy: shortLimits{pol}})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run()
	if err == nil || !strings.Contains(err.Error(), "policy fixed-lane: the plan's limits have") {
		t.Fatalf("Run: %v, want the plan's limits refused", err)
	}
}

// TestEffectiveTierIsPolicies: the world's effectiveTier is the policies'
// Job.EffectiveTier for every combination of tiers, set or not, in range
// or not.
func TestEffectiveTierIsPolicies(t *testing.T) {
	for a := -2; a <= 6; a++ {
		for p := -2; p <= 6; p++ {
			for b := -2; b <= 6; b++ {
				j := policies.Job{AccountTier: policies.Tier(a), ProjectTier: policies.Tier(p), BatchTier: policies.Tier(b)}
				if got, want := effectiveTier(int8(a), int8(p), int8(b)), j.EffectiveTier(); got != want {
					t.Errorf("effectiveTier(%d, %d, %d) = %d, want %d", a, p, b, got, want)
				}
			}
		}
	}
}

// TestCallAcceptedGatewayOnly: callAccepted tells the recorder of a job
// that stops (or starts) waiting on the gateway alone exactly as
// updateGatewayOnly around the count's increment does, in every phase and
// at every count near the edges.
func TestCallAcceptedGatewayOnly(t *testing.T) {
	reference := func(w *World, slot int32) {
		j := w.running.at(slot)
		w.settle(j)
		before := gatewayOnly(j)
		j.service++
		w.updateGatewayOnly(j, before)
	}
	sc := smallScenario(t, nil)
	for _, phase := range []uint8{jobWaiting, jobStarting, jobLLM, jobTool} {
		for service := int32(-3); service <= 3; service++ {
			var got, want jobState
			var gotGW, wantGW int
			for _, run := range []struct {
				accept func(*World, int32)
				j      *jobState
				gw     *int
			}{{(*World).callAccepted, &got, &gotGW}, {reference, &want, &wantGW}} {
				w := newWorld(t, sc, "fixed-lane", Options{Seed: 1})
				slot := w.running.take()
				j := w.running.at(slot)
				j.phase, j.service, j.model = phase, service, 1
				before := w.rec.lanes[1].gwOnly.v
				run.accept(w, slot)
				*run.j, *run.gw = *j, w.rec.lanes[1].gwOnly.v-before
			}
			if gotGW != wantGW || got.service != want.service {
				t.Errorf("phase %d, %d in service: gateway-only moved by %d, service %d; want %d, %d", phase, service, gotGW, got.service, wantGW, want.service)
			}
		}
	}
}
