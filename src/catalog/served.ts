/**
 * The Catalog served at run time: finds entries by id or alias (with the models a live source adds), validates
 * requests with each entry's compiled schema, quotes them and summarises their prices. One idea, the catalog's
 * answers to the checkout and the catalog routes, so one class.
 */
import type { ValidateFunction } from 'ajv';
import { isSelfHosted } from '../config/providers.js';
import type { FieldError } from '../http/errors.js';
import { callerField } from './caller-names.js';
import { CHAT_WIRE_SCHEMA, chatTraitErrors } from './chat-schema.js';
import { estimateInputTokens, PRECOUNT_ABOVE_CHARS, precountInputTokens } from './chat-tokens.js';
import { type ConsultCandidate, ConsultIndex } from './consult.js';
import { exampleInput } from './examples.js';
import { chatTokensCost, evaluateRule, finalMicroUsd, MAX_QUOTE_MICRO_USD } from './price-rules.js';
import { imagePrompt, planRecipe, recipeQuote } from './recipe-plan.js';
import { closestIds } from './suggest.js';
import { type PriceSummary, priceSummary } from './summary.js';
import { countTokens, type TokenCounter, tokenCeiling } from './tokenizer.js';
import {
  type Catalog,
  type CatalogEntry,
  type JsonSchema,
  type LookupEntry,
  type ModelEntry,
  methodOf,
  type PriceClass,
  type Quote,
  type RecipeEntry,
  type ToolEntry,
  type Validation,
} from './types.js';
import { formatErrors, Validators } from './validate.js';

export interface LoadOptions {
  /** Margin on upstream prices in percent, by provider name; `*` is the default. */
  marginPercent: Record<string, number>;
}

// Requests compile their entry's validator on first use. Compiled validators depend only on the schemas, which are
// fixed for the process: a second catalog (tests start many kasirs) reuses them instead of compiling again.
const sharedValidators = new Validators();
/** What the catalog routes need beyond the Catalog the checkout uses. */
export interface CatalogViews {
  /** The margin (percent) applied to this entry's upstream price. */
  marginFor(entry: CatalogEntry): number;
  summary(entry: CatalogEntry): PriceSummary;
  /** The entry's default request: its required inputs with sample values (without `model`). */
  example(entry: CatalogEntry): Record<string, unknown>;
  /**
   * Validates inputs for a quote: the given inputs over the default request, exactly as the paid route would.
   * `fromQuery` coerces query-string values to the schema's types first (JSON for object and array inputs).
   */
  validateForQuote(
    entry: CatalogEntry,
    given: Record<string, unknown>,
    fromQuery: boolean,
    bodyBytes: number,
  ): Promise<Validation>;
  consult(intent: string, limit: number): ConsultCandidate[];
  /** Replaces the models a live source (a self-hosted server's model list) adds to the catalog. */
  setLiveEntries(source: string, entries: readonly ModelEntry[]): void;
  /** Grows each time the entries change (a live source's list changed). */
  readonly version: number;
}

export type LoadedCatalog = Catalog & CatalogViews;

/** Narrows a Catalog to the loaded one (the routes need its views). */
export function isLoadedCatalog(catalog: Catalog): catalog is LoadedCatalog {
  const c = catalog as Partial<LoadedCatalog>;
  return (
    typeof c.summary === 'function' &&
    typeof c.consult === 'function' &&
    typeof c.validateForQuote === 'function'
  );
}

/** The schema request bodies are validated with: every chat model shares the chat wire schema. */
export function requestSchema(entry: CatalogEntry): JsonSchema {
  return entry.kind === 'model' && entry.chat ? CHAT_WIRE_SCHEMA : entry.input;
}

/**
 * True when more input tokens can only make a request of this entry dearer or too long, so a verdict reached with
 * a token upper bound holds for the real count. It fails only for a long-context rate below the base rate.
 */
function verdictGrowsWithTokens(entry: CatalogEntry): boolean {
  const rule = entry.kind === 'model' ? entry.price : undefined;
  if (rule?.kind !== 'chat_tokens' || !rule.longContext) return true;
  return rule.longContext.inputPer1M >= rule.inputPer1M && rule.longContext.outputPer1M >= rule.outputPer1M;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function dollars(microUsd: number): string {
  return `$${(microUsd / 1_000_000).toFixed(2)}`;
}

/** The catalog built from checked entries (see load.ts, which builds it only when every entry is sound). */
export class ServedCatalog implements LoadedCatalog {
  private models_: ModelEntry[];
  private readonly tools_: ToolEntry[];
  private readonly recipes_: RecipeEntry[];
  // The free entries: found by id like the others, listed apart from those sold (entries()).
  private readonly lookups_: LookupEntry[];
  // The entries sold, from the data files.
  private readonly fixed: CatalogEntry[];
  private all: CatalogEntry[];
  private byId: Map<string, CatalogEntry>;
  private names: Map<string, string>;
  // Entries a live source contributes (a self-hosted server's model list), by source; replaced on each reading.
  private readonly live = new Map<string, ModelEntry[]>();
  private version_ = 0;
  private readonly summaries = new Map<string, PriceSummary>();
  // Each entry's validators, found by id on the hot path (the shared cache keys by the schema's JSON text).
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly compiledCoercing = new Map<string, ValidateFunction>();
  private index: ConsultIndex | undefined;

  constructor(
    loaded: CatalogEntry[],
    private readonly fixedNames: Map<string, string>,
    private readonly validators: Validators = sharedValidators,
    private readonly options: LoadOptions,
  ) {
    this.lookups_ = loaded.filter((e): e is LookupEntry => e.kind === 'lookup');
    const fixed = loaded.filter((e) => e.kind !== 'lookup');
    this.fixed = fixed;
    this.all = fixed;
    this.names = fixedNames;
    this.models_ = fixed.filter((e): e is ModelEntry => e.kind === 'model');
    this.tools_ = fixed.filter((e): e is ToolEntry => e.kind === 'tool');
    this.recipes_ = fixed.filter((e): e is RecipeEntry => e.kind === 'recipe');
    this.byId = new Map(loaded.map((e) => [e.id, e]));
  }

  get version(): number {
    return this.version_;
  }

  setLiveEntries(source: string, entries: readonly ModelEntry[]): void {
    const before = this.live.get(source) ?? [];
    const same =
      before.length === entries.length &&
      before.every((e, i) => JSON.stringify(e) === JSON.stringify(entries[i]));
    if (same) return;
    for (const e of [...before, ...entries]) {
      this.summaries.delete(e.id);
      this.compiled.delete(e.id);
      this.compiledCoercing.delete(e.id);
    }
    this.live.set(source, [...entries]);
    // The data files' ids and aliases always win; a live id or alias another entry already has is skipped.
    const names = new Map(this.fixedNames);
    const added: ModelEntry[] = [];
    for (const list of this.live.values()) {
      for (const entry of list) {
        if (names.has(entry.id)) continue;
        names.set(entry.id, entry.id);
        for (const alias of entry.aliases ?? []) if (!names.has(alias)) names.set(alias, entry.id);
        added.push(entry);
      }
    }
    this.names = names;
    this.all = [...this.fixed, ...added];
    this.models_ = this.all.filter((e): e is ModelEntry => e.kind === 'model');
    this.byId = new Map(this.offered().map((e) => [e.id, e]));
    this.index = undefined;
    this.version_++;
  }

  entries(): readonly CatalogEntry[] {
    return this.all;
  }

  models(): readonly ModelEntry[] {
    return this.models_;
  }

  tools(): readonly ToolEntry[] {
    return this.tools_;
  }

  recipes(): readonly RecipeEntry[] {
    return this.recipes_;
  }

  lookups(): readonly LookupEntry[] {
    return this.lookups_;
  }

  offered(): readonly CatalogEntry[] {
    return [...this.all, ...this.lookups_];
  }

  find(id: string): CatalogEntry | undefined {
    const canonical = this.names.get(id);
    return canonical === undefined ? undefined : this.byId.get(canonical);
  }

  suggest(id: string): string[] {
    return closestIds(id, this.names, 3);
  }

  prepare(entry: CatalogEntry, input: Record<string, unknown>, bodyBytes: number): Promise<void> | undefined {
    // A body's text has at most as many characters as the body has bytes.
    if (entry.kind !== 'model' || !entry.chat || bodyBytes <= PRECOUNT_ABOVE_CHARS) return undefined;
    return precountInputTokens(input, entry.chat.contextLength ?? Number.POSITIVE_INFINITY);
  }

  validate(entry: CatalogEntry, input: unknown): Validation {
    return this.check(entry, input, this.validatorFor(entry, methodOf(entry) === 'GET'));
  }

  quote(entry: CatalogEntry, input: Record<string, unknown>, priceClass: PriceClass): Quote {
    if (entry.kind !== 'model') {
      const cost = priceClass === 'wallet' ? entry.price.walletMicroUsd : entry.price.prepaidMicroUsd;
      if (entry.kind !== 'recipe') return { costMicroUsd: cost, unit: 'call', units: 1 };
      const planned = planRecipe(this, entry, input, imagePrompt(entry, input));
      if (!planned.ok) throw new Error(`recipe ${entry.id} quoted for an input it refuses`);
      return recipeQuote(planned.plan, cost);
    }
    if (!entry.price) throw new Error(`model ${entry.id} has no price rule`);
    const q = evaluateRule(entry.price, input, this.propsOf(entry));
    return { costMicroUsd: finalMicroUsd(q.cost, this.marginFor(entry)), unit: q.unit, units: q.units };
  }

  outputPrice(entry: CatalogEntry, input: Record<string, unknown>) {
    if (entry.kind !== 'model' || entry.price?.kind !== 'chat_tokens') return undefined;
    const rule = entry.price;
    const margin = this.marginFor(entry);
    // Counted once (the quote's count, cached): the price is asked again for every frame of the stream.
    const inputTokens = estimateInputTokens(input);
    return (outputTokens: number) => finalMicroUsd(chatTokensCost(rule, inputTokens, outputTokens), margin);
  }

  marginFor(entry: CatalogEntry): number {
    if (entry.kind !== 'model') return 0;
    const m = this.options.marginPercent;
    // A self-hosted model's price is the operator's own: only a margin naming its server applies.
    if (isSelfHosted(entry.upstream.provider)) return m[entry.upstream.provider] ?? 0;
    return m[entry.upstream.provider] ?? m['*'] ?? 0;
  }

  summary(entry: CatalogEntry): PriceSummary {
    let s = this.summaries.get(entry.id);
    if (!s) {
      s = priceSummary(entry, this.marginFor(entry));
      this.summaries.set(entry.id, s);
    }
    return s;
  }

  example(entry: CatalogEntry): Record<string, unknown> {
    return exampleInput(entry);
  }

  async validateForQuote(
    entry: CatalogEntry,
    given: Record<string, unknown>,
    fromQuery: boolean,
    bodyBytes: number,
  ): Promise<Validation> {
    const inputs = { ...given };
    delete inputs.model;
    const errors: FieldError[] = [];
    if (fromQuery) {
      const props = this.propsOf(entry);
      for (const [name, value] of Object.entries(inputs)) {
        const types = ([] as unknown[]).concat(props[name]?.type ?? []);
        const structured =
          types.includes('object') || types.includes('array') || props[name]?.anyOf !== undefined;
        if (structured && typeof value === 'string' && /^\s*[[{]/.test(value)) {
          try {
            inputs[name] = JSON.parse(value);
          } catch {
            errors.push({ field: name, message: 'must be JSON (an object or array) in a query parameter' });
          }
        }
      }
    }
    if (errors.length) return { ok: false, errors };
    const request = { ...this.example(entry), ...inputs };
    await this.prepare(entry, request, bodyBytes);
    return this.check(entry, request, this.validatorFor(entry, fromQuery || methodOf(entry) === 'GET'));
  }

  consult(intent: string, limit: number): ConsultCandidate[] {
    this.index ??= new ConsultIndex(this.offered(), (e) => this.summary(e));
    return this.index.consult(intent, limit);
  }

  /**
   * The start-up check of an entry's default request, with the checker's validator. Tokens are counted at their
   * upper bound first, so start-up does not load the tokenizer for a few words; only a request that fails at the
   * bound (or an entry whose verdict need not grow with tokens) is counted for real, which also gives the message.
   */
  checkDefaultRequest(entry: CatalogEntry, validator: ValidateFunction): Validation {
    const bounded = this.check(entry, exampleInput(entry), validator, tokenCeiling);
    if (bounded.ok && verdictGrowsWithTokens(entry)) return bounded;
    return this.check(entry, exampleInput(entry), validator, countTokens);
  }

  private propsOf(entry: CatalogEntry): Record<string, JsonSchema> {
    return ((entry.input.properties ?? {}) as Record<string, JsonSchema>) ?? {};
  }

  private validatorFor(entry: CatalogEntry, coercing: boolean): ValidateFunction {
    const byId = coercing ? this.compiledCoercing : this.compiled;
    let validator = byId.get(entry.id);
    if (!validator) {
      const schema = requestSchema(entry);
      validator = coercing ? this.validators.compileCoercing(schema) : this.validators.compile(schema);
      byId.set(entry.id, validator);
    }
    return validator;
  }

  private check(
    entry: CatalogEntry,
    input: unknown,
    validator: ValidateFunction,
    counter: TokenCounter = countTokens,
  ): Validation {
    if (!isPlainObject(input))
      return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
    const errors = validator(input)
      ? []
      : formatErrors(validator.errors, requestSchema(entry)).map((e) => ({
          ...e,
          field: callerField(input, e.field),
        }));
    if (entry.kind === 'model' && entry.chat && errors.length === 0)
      errors.push(...chatTraitErrors(entry.chat, input, counter));
    if (errors.length) return { ok: false, errors };
    if (entry.kind === 'recipe') {
      const planned = planRecipe(this, entry, input, imagePrompt(entry, input));
      return planned.ok ? { ok: true, value: input } : planned;
    }
    if (entry.kind === 'model' && entry.price) {
      const q = evaluateRule(entry.price, input, this.propsOf(entry), counter);
      const cost = finalMicroUsd(q.cost, this.marginFor(entry));
      if (cost > MAX_QUOTE_MICRO_USD) {
        return {
          ok: false,
          errors: [
            {
              field: q.dearField,
              message: `makes this call cost ${dollars(cost)}, above the ${dollars(MAX_QUOTE_MICRO_USD)} limit per call; ask for less`,
            },
          ],
        };
      }
      // The same figure `quote` would work out again; only a real token count makes it the quote.
      if (counter === countTokens)
        return { ok: true, value: input, modelQuote: { costMicroUsd: cost, unit: q.unit, units: q.units } };
    }
    return { ok: true, value: input };
  }
}
