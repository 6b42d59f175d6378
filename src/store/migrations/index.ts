/** Versioned schema migrations, applied in name order at start-up. */
import type { Migration } from 'kysely';
import type { DbKind } from '../db.js';
import { m001Media } from './001-media.js';
import { m002Ledger } from './002-ledger.js';
import { m003Leases } from './003-leases.js';
import { m004WalletPayments } from './004-wallet-payments.js';
import { m005Mpp } from './005-mpp.js';
import { m006Dashboard } from './006-dashboard.js';
import { m007Jobs } from './007-jobs.js';
import { m008Channels } from './008-channels.js';
import { m009ChannelHolds } from './009-channel-holds.js';
import { m010ChargeJournal } from './010-charge-journal.js';
import { m011UsageTxIndex } from './011-usage-tx-index.js';
import { m012JobOwner } from './012-job-owner.js';

export function migrations(kind: DbKind): Record<string, Migration> {
  return {
    '001-media': m001Media(kind),
    '002-ledger': m002Ledger(kind),
    '003-leases': m003Leases(kind),
    '004-wallet-payments': m004WalletPayments(kind),
    '005-mpp': m005Mpp(kind),
    '006-dashboard': m006Dashboard(kind),
    '007-jobs': m007Jobs(kind),
    '008-channels': m008Channels(kind),
    '009-channel-holds': m009ChannelHolds(kind),
    '010-charge-journal': m010ChargeJournal(kind),
    '011-usage-tx-index': m011UsageTxIndex(kind),
    '012-job-owner': m012JobOwner(kind),
  };
}
