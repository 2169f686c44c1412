package scenario

import "time"

// The providers' metering presets. Each rule names the public page it is
// read from and the date it was read; a rule the pages do not state is
// marked A (an assumption). docs/concepts/quotas.md has the same table with
// the quotes. Limits (RPM, ITPM, ...) are never preset: they depend on the
// organisation's tier and are the scenario's to set.
//
// anthropic — https://docs.anthropic.com/en/api/rate-limits (read 2026-12-01):
//   - RPM, ITPM and OTPM per organisation and model class, "using the token
//     bucket algorithm": capacity refills continuously up to the limit
//     (meter: token_bucket).
//   - ITPM counts input_tokens and cache_creation_input_tokens; for current
//     models cache_read_input_tokens do not count (input: uncached).
//   - OTPM is estimated from max_tokens at the start of a request and
//     adjusted to the real output at its end (output: max_tokens_reconciled).
//   https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching (read
//   2026-12-01): an entry lives 5 minutes after its last use by default, 1 h
//   as an option (cache.lifetime: 5m); a 5-minute write is billed at 1.25×
//   the base input price, a read at 0.1× (write_factor 1.25, read_factor 0.1).
//
// openai — https://platform.openai.com/docs/guides/rate-limits (read
// 2026-12-01):
//   - RPM and TPM, RPD/TPD on some tiers, per organisation and project.
//   - A request is counted from its input and its max_tokens ("your rate
//     limit is calculated as the maximum of max_tokens and the estimated
//     number of tokens based on the character count of your request"; the
//     lab reads this, as the issue does, as input + max_tokens at admission,
//     never corrected: output: max_tokens).
//   - A: the page names no algorithm; the preset keeps the rolling window.
//   - A: cached input counts towards TPM like any input (input: all).
//   https://platform.openai.com/docs/guides/prompt-caching (read 2026-12-01):
//   automatic caching, prefixes kept 5–10 minutes after their last use
//   (A: 5m); no write surcharge (write_factor 1); A: cached input at 0.1×
//   (the discount of the current model family; older models 0.5×).
//
// azure-openai — https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/quota
// (read 2026-12-01):
//   - TPM and RPM per deployment; each request is counted at admission from
//     "an estimated max processed-token count" of its prompt and its
//     max_tokens (output: max_tokens).
//   - Limits are also evaluated over 1 s or 10 s intervals (600 RPM → 10
//     requests a second): not modelled, the lab's windows are a minute (A).
//   - A: rolling window, input: all, the cache as openai's.

// presetRules is what a preset sets.
type presetRules struct {
	meter       MeterKind
	input       InputCount
	output      OutputCount
	lifetime    time.Duration
	write, read float64
}

var presets = [numPresets]presetRules{
	PresetAnthropic:   {meter: MeterTokenBucket, input: InputUncached, output: OutputReconciled, lifetime: 5 * time.Minute, write: 1.25, read: 0.1},
	PresetOpenAI:      {meter: MeterRolling, input: InputAll, output: OutputMaxTokens, lifetime: 5 * time.Minute, write: 1, read: 0.1},
	PresetAzureOpenAI: {meter: MeterRolling, input: InputAll, output: OutputMaxTokens, lifetime: 5 * time.Minute, write: 1, read: 0.1},
}

// applyPreset fills the metering keys the organisation left unset from its
// preset, and a cache block's unset keys from the defaults. Without a
// preset, unset keys keep their zero values, which read as today's meter
// (InputRule, OutputRule): a scenario that sets none of them is written
// out exactly as before.
func (o *OrgConfig) applyPreset() {
	if o.Preset != PresetNone {
		r := presets[o.Preset]
		if o.MeterAll == MeterDefault {
			o.MeterAll = r.meter
			// A daily quota with a reset time stays fixed unless asked.
			if o.DailyReset != nil {
				o.Meters = setDefault(o.Meters, DimRPD, MeterFixed)
				o.Meters = setDefault(o.Meters, DimTPD, MeterFixed)
			}
		}
		if o.Input == InputDefault {
			o.Input = r.input
		}
		if o.Output == OutputDefault {
			o.Output = r.output
		}
		if o.Cache == nil {
			o.Cache = &CacheConfig{}
		}
		c := o.Cache
		if c.Enabled == nil {
			on := true
			c.Enabled = &on
		}
		if c.Lifetime == 0 {
			c.Lifetime = r.lifetime
		}
		if c.WriteFactor == 0 {
			c.WriteFactor = r.write
		}
		if c.ReadFactor == 0 {
			c.ReadFactor = r.read
		}
	}
	if c := o.Cache; c != nil {
		if c.Enabled == nil {
			on := true // a cache block asks for a cache
			c.Enabled = &on
		}
		if c.Lifetime == 0 {
			c.Lifetime = DefaultCacheLifetime
		}
		if c.WriteFactor == 0 {
			c.WriteFactor = 1
		}
		if c.ReadFactor == 0 {
			c.ReadFactor = 1
		}
	}
}

func setDefault(m map[string]MeterKind, d int, k MeterKind) map[string]MeterKind {
	if m == nil {
		m = map[string]MeterKind{}
	}
	if m[DimNames[d]] == MeterDefault {
		m[DimNames[d]] = k
	}
	return m
}

// TodaysMeter says whether the organisation meters as the lab always has:
// rolling (or fixed daily) windows over input plus the real output, counted
// at admission, no cache.
func (o *OrgConfig) TodaysMeter() bool {
	for d, l := range o.Limits() {
		if l > 0 && o.Meter(d) == MeterTokenBucket {
			return false
		}
	}
	return o.ITPM == 0 && o.OTPM == 0 && o.InputRule() == InputAll && o.OutputRule() == OutputActual && !o.Cache.On()
}

// InputRule is the organisation's input counting (all when unset).
func (o *OrgConfig) InputRule() InputCount {
	if o.Input == InputDefault {
		return InputAll
	}
	return o.Input
}

// OutputRule is the organisation's output counting (actual when unset).
func (o *OrgConfig) OutputRule() OutputCount {
	if o.Output == OutputDefault {
		return OutputActual
	}
	return o.Output
}
