/** One round of the payment-channel drill: answers delivered against what the channels were charged. */
export interface ChannelRound {
  rail: 'channel';
  round: number;
  killed: string;
  /** Paid calls sent this round (each by voucher on its payer's channel). */
  calls: number;
  /** Answered 200 with the whole body. */
  delivered: number;
  /** Cut by the kill (the connection dropped, or refused while the instance was down). */
  cut: number;
  /** Answered anything else (a refusal). */
  refused: number;
  /** Charged without the answer delivered: in flight on the killed instance when it died. */
  killWindow: number;
  /** Holds still open once the dead instance's lapsed (rows of channel_holds, channels with anything in flight). */
  holdsOpen: number;
  /** Since the start: the costs stated by the answers delivered, and by the kill-window calls charged. */
  deliveredMicroUsd: number;
  killWindowMicroUsd: number;
  /** Since the start: what kasir's usage records charged on channels, and the channels' spend. */
  chargedMicroUsd: number;
  spentMicroUsd: number;
  /** How long the round took (its load, the kill, waiting out the holds). */
  seconds: number;
  /** Channels closed on chain paying the payee exactly their spend (`close`, the last round only). */
  closed?: number;
  equal: boolean;
  unexplained?: Record<string, unknown>;
}

export function runChannelDrill(options?: {
  rounds?: number;
  payers?: number;
  replace?: boolean;
  close?: boolean;
  log?: (line: string) => void;
  /** A test's signal: when it aborts, the drill stops its processes and rejects. */
  signal?: AbortSignal;
}): Promise<ChannelRound[]>;

export function printChannels(rows: ChannelRound[]): void;
