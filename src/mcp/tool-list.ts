/**
 * The MCP tool list: every catalog entry this server can sell (models, paid tools, recipes, and free lookups once
 * they are catalog entries with a zero price), named and described for an agent from the catalog's own data — its
 * input schema, its price and unit — with no code per tool. Paginated by an opaque cursor.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { isLoadedCatalog } from '../catalog/served.js';
import { priceSummary } from '../catalog/summary.js';
import {
  type Catalog,
  type CatalogEntry,
  idField,
  isFree,
  isReadOnly,
  type JsonSchema,
} from '../catalog/types.js';
import type { OfferRegistry } from '../offers/registry.js';
import { RpcError } from './rpc-error.js';

/** Tools per `tools/list` page. */
export const TOOLS_PAGE_SIZE = 50;

/**
 * The MCP name of an entry: its catalog id with `/` written `__` and any other character MCP names do not allow
 * (outside `A-Za-z0-9_.-`) written `_`, e.g. `openai__gpt-4.1-mini`, `tools__exchange-rate`.
 */
export function toolNameOf(entry: CatalogEntry): string {
  return entry.id
    .replaceAll('/', '__')
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .slice(0, 128);
}

/** What an entry costs, as one line an agent reads before calling: price, unit, and the rail prices. */
export function priceLine(catalog: Catalog, entry: CatalogEntry): string {
  if (isFree(entry)) return 'Free: no payment needed.';
  if (entry.kind !== 'model') {
    const { walletMicroUsd, prepaidMicroUsd } = entry.price;
    return `Price: ${prepaidMicroUsd} micro-USD per call with a prepaid key, ${walletMicroUsd} micro-USD per call from a wallet (MPP or x402).`;
  }
  const margin = isLoadedCatalog(catalog) ? catalog.marginFor(entry) : 0;
  const s = isLoadedCatalog(catalog) ? catalog.summary(entry) : priceSummary(entry, margin);
  const rate =
    s.inputRateMicroUsd !== undefined
      ? `${s.inputRateMicroUsd} micro-USD per ${s.per} input tokens and ${s.rateMicroUsd} per ${s.per} output tokens`
      : `up to ${s.rateMicroUsd} micro-USD per ${s.per === 1 ? '' : `${s.per} `}${s.unit}`;
  return `Price: ${rate}; a call costs ${s.minMicroUsd} to ${s.maxMicroUsd} micro-USD, quoted exactly before payment and charged only on success.`;
}

/** The entry's input schema as an MCP `inputSchema`: an object schema, without the fields the tool itself fixes. */
export function inputSchemaOf(entry: CatalogEntry): Tool['inputSchema'] {
  const schema = structuredClone(entry.input) as JsonSchema & {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  if (entry.kind === 'model') {
    // The tool names the model; an MCP result is one whole answer, never a stream.
    const hidden = entry.category === 'chat' ? ['model', 'stream', 'stream_options'] : ['model'];
    if (schema.properties) for (const f of hidden) delete schema.properties[f];
    if (Array.isArray(schema.required)) schema.required = schema.required.filter((f) => !hidden.includes(f));
  }
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

/**
 * The envelope every paid answer has (the checkout's paidAnswer): the id sold, its cost and the receipt, beside the
 * entry's own fields. A free entry's answer has no such envelope, so it declares none.
 */
export function outputSchemaOf(entry: CatalogEntry): Tool['outputSchema'] {
  if (isFree(entry)) return undefined;
  const id = idField(entry);
  return {
    type: 'object',
    properties: {
      [id]: { type: 'string', const: entry.id },
      costMicroUsd: { type: 'integer', minimum: 0 },
      receipt: { type: 'object' },
    },
    required: [id, 'costMicroUsd', 'receipt'],
  };
}

/** One entry as an MCP tool. */
export function toolOf(catalog: Catalog, entry: CatalogEntry): Tool {
  const free = isFree(entry);
  const what = entry.kind === 'model' ? `Model ${entry.id} (${entry.category})` : entry.id;
  return {
    name: toolNameOf(entry),
    title: entry.name,
    description: `${what}: ${entry.description}\n\n${priceLine(catalog, entry)}`,
    inputSchema: inputSchemaOf(entry),
    ...(free ? {} : { outputSchema: outputSchemaOf(entry) }),
    annotations: {
      title: entry.name,
      readOnlyHint: isReadOnly(entry),
      destructiveHint: false,
      idempotentHint: isReadOnly(entry),
      openWorldHint: !free,
    },
    _meta: { 'kasir/id': entry.id, 'kasir/kind': entry.kind },
  };
}

/** The tools of this server, built from the catalog and the offer registry; names resolve back to entries. */
export class ToolList {
  private built: { version: number; tools: Tool[]; byName: Map<string, CatalogEntry> } | undefined;

  constructor(
    private readonly catalog: Catalog,
    private readonly offers: OfferRegistry,
    /** Grows when availability or the entries change (the model watch, live entries). */
    private readonly version: () => number = () => 0,
  ) {}

  private current() {
    const version = this.version() + (isLoadedCatalog(this.catalog) ? this.catalog.version * 1e6 : 0);
    if (this.built?.version === version) return this.built;
    const tools: Tool[] = [];
    const byName = new Map<string, CatalogEntry>();
    // Everything offered here, sold or free (the registry lists only what can run in this configuration).
    for (const entry of this.offers.offered()) {
      const tool = toolOf(this.catalog, entry);
      if (byName.has(tool.name)) continue;
      byName.set(tool.name, entry);
      tools.push(tool);
    }
    this.built = { version, tools, byName };
    return this.built;
  }

  /** Every tool, in catalog order. */
  all(): readonly Tool[] {
    return this.current().tools;
  }

  /** One page from `cursor` (opaque: the offset, base64url), with the next page's cursor when there is one. */
  page(cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
    const { tools } = this.current();
    let start = 0;
    if (cursor !== undefined) {
      const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (!Number.isInteger(n) || n < 0 || n > tools.length) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          'invalid cursor: pass the nextCursor of a tools/list answer',
        );
      }
      start = n;
    }
    const end = start + TOOLS_PAGE_SIZE;
    return {
      tools: tools.slice(start, end),
      ...(end < tools.length ? { nextCursor: Buffer.from(String(end)).toString('base64url') } : {}),
    };
  }

  /** The entry a tool name calls: a listed name, or a catalog id or alias. Undefined when none is sold here. */
  entryOf(name: string): CatalogEntry | undefined {
    const listed = this.current().byName.get(name);
    if (listed) return listed;
    const entry = this.catalog.find(name);
    return entry && this.offers.available(entry) ? entry : undefined;
  }
}
