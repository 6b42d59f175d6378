/** Why the safe fetcher would not, or could not, fetch a URL. */

export type FetchFailureKind =
  /** The URL's scheme, host or address is refused by the rules (or a redirect led to such a URL). */
  | 'refused'
  /** The body is larger than the limit for this fetch. */
  | 'too_large'
  /** The content type is not one this fetch accepts. */
  | 'bad_type'
  /** The server answered with a status other than 2xx (or too many redirects). */
  | 'status'
  /** No complete answer within the time limit. */
  | 'timeout'
  /** The connection failed. */
  | 'network';

export class FetchFailure extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'FetchFailure';
  }
}
