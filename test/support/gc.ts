/** A full garbage collection from a test: V8's own `gc`, exposed for this process without a command-line flag. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
