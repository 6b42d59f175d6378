/** The operator CLI (`npx kasir <command>`): the admin API's operations, run against the database directly, printing JSON. */
import { parseArgs } from 'node:util';
import { sweepOnce } from './checkout/sweeper.js';
import { ConfigError } from './config/error.js';
import { loadConfig } from './config/load.js';
import { createAccount, getAccount, issueKey, listKeys, revokeKey } from './ledger/accounts.js';
import { adjustBalance, getBalance } from './ledger/books.js';
import { listLedger, listUsage } from './ledger/history.js';
import { formatUsd } from './ledger/money.js';
import { type Db, openDb } from './store/db.js';

const USAGE = `usage: kasir <command> [options]

  accounts create [--label L] [--rate-limit N]     create a prepaid account
  accounts show <account_id>                       balance, held amount and keys
  keys create <account_id> [--label L] [--spend-cap MICRO_USD] [--rate-limit N]
                                                   issue an API key (printed once)
  keys revoke <key_id>                             revoke a key
  credit <account_id> <micro_usd> --reason R [--idempotency-key K]
  debit <account_id> <micro_usd> --reason R [--idempotency-key K]
  ledger <account_id> [--limit N] [--before ID]    ledger entries, newest first
  usage <account_id> [--limit N] [--before ID]     usage records, newest first
  sweep                                            settle stale holds, drop expired records
  migrate                                          bring the database schema up to date
  devnet [--env-out PATH] [--json-out PATH]        local chains for the wallet rails and a local chat model:
                                                   prints one JSON line (env, evm, tempo, model) when ready,
                                                   writes env / the line to the files, runs until SIGTERM
  mcp --url URL [--key K | --wallet FILE] [--max-per-call N] [--max-session N]
                                                   a stdio MCP server for desktop agents, relaying to a
                                                   kasir's /mcp and paying within the caps (kasir mcp -h)
  doctor                                           ask every configured provider for its model list: catalog
                                                   models it does not serve, lists that cannot be read
                                                   (exit 1 when any)

The database comes from DATABASE_URL (default: the SQLite file under DATA_DIR), as for the server.`;

export class UsageError extends Error {}

const OPTIONS = {
  label: { type: 'string' },
  'rate-limit': { type: 'string' },
  'spend-cap': { type: 'string' },
  reason: { type: 'string' },
  'idempotency-key': { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function int(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

async function balanceView(db: Db, accountId: string) {
  const b = await getBalance(db, accountId);
  return {
    account_id: b.accountId,
    balance_micro_usd: b.balanceMicroUsd,
    held_micro_usd: b.heldMicroUsd,
    available_micro_usd: b.availableMicroUsd,
    balance_usd: formatUsd(b.balanceMicroUsd),
  };
}

/** Runs one command and returns what to print. */
export async function runCommand(db: Db, argv: string[]): Promise<unknown> {
  const { values: o, positionals: p } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, sub] = p;
  const page = () => ({ limit: int(o.limit, '--limit') ?? 100, before: int(o.before, '--before') });
  switch (command === 'accounts' || command === 'keys' ? `${command} ${sub}` : command) {
    case 'accounts create': {
      const a = await createAccount(db, {
        label: o.label,
        rateLimitPerMinute: int(o['rate-limit'], '--rate-limit'),
      });
      return { account_id: a.id, label: a.label };
    }
    case 'accounts show': {
      const id = need(p[2], 'account_id');
      const account = await getAccount(db, id);
      if (!account) throw new UsageError(`no account ${id}`);
      return { ...(await balanceView(db, id)), label: account.label, keys: await listKeys(db, id) };
    }
    case 'keys create':
      return issueKey(db, need(p[2], 'account_id'), {
        label: o.label,
        spendCapMicroUsd: int(o['spend-cap'], '--spend-cap'),
        rateLimitPerMinute: int(o['rate-limit'], '--rate-limit'),
      });
    case 'keys revoke': {
      const revoked = await revokeKey(db, need(p[2], 'key_id'));
      if (!revoked) throw new UsageError(`no key ${p[2]}`);
      return { key_id: revoked.id, revoked_at: revoked.revoked_at };
    }
    case 'credit':
    case 'debit': {
      const accountId = need(p[1], 'account_id');
      const amount = int(need(p[2], 'amount in micro-USD'), 'amount');
      const result = await adjustBalance(db, {
        accountId,
        kind: command as 'credit' | 'debit',
        amountMicroUsd: amount ?? 0,
        reason: need(o.reason, '--reason'),
        idempotencyKey: o['idempotency-key'] ?? `cli:${Date.now()}:${Math.random()}`,
      });
      return { ...(await balanceView(db, accountId)), applied: result.applied };
    }
    case 'ledger':
      return listLedger(db, need(p[1], 'account_id'), page());
    case 'usage':
      return listUsage(db, need(p[1], 'account_id'), page());
    case 'sweep':
      return sweepOnce(db, loadConfig(process.env).holdTtlSeconds);
    case 'migrate':
      return { migrated: true };
    default:
      throw new UsageError(
        command ? `unknown command: ${[command, sub].filter(Boolean).join(' ')}` : 'no command given',
      );
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'mcp') {
    const { runBridge } = await import('./mcp/bridge.js');
    return runBridge(argv.slice(1));
  }
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.error(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === 'devnet') {
    const { runDevnet } = await import('./devnet/command.js');
    return runDevnet(argv.slice(1));
  }
  if (argv[0] === 'doctor') {
    try {
      const { runDoctor } = await import('./catalog/doctor.js');
      const report = await runDoctor(loadConfig(process.env));
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return report.ok ? 0 : 1;
    } catch (err) {
      console.error(`kasir: ${err instanceof Error ? err.message : String(err)}`);
      return err instanceof ConfigError ? 2 : 1;
    }
  }
  let db: Db | undefined;
  try {
    db = await openDb(loadConfig(process.env).database);
    const out = await runCommand(db, argv);
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`kasir: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`kasir: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await db?.close();
  }
}
