// FETCH_CA_FILE: the extra certificates the safe fetcher trusts, and the problems a bad file is named by.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFetch } from './fetch.js';

const PEM = (n: number) => `-----BEGIN CERTIFICATE-----\nMIIB${n}\n-----END CERTIFICATE-----`;

describe('FETCH_CA_FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-ca-'));

  it('reads each certificate of the PEM file, and none when unset', () => {
    const file = path.join(dir, 'two.pem');
    writeFileSync(file, `${PEM(1)}\n${PEM(2)}\n`);
    const problems: string[] = [];
    expect(parseFetch({ FETCH_CA_FILE: file }, problems).extraCa).toEqual([PEM(1), PEM(2)]);
    expect(parseFetch({}, problems).extraCa).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('names a missing file or one without a certificate as a problem', () => {
    const problems: string[] = [];
    parseFetch({ FETCH_CA_FILE: path.join(dir, 'absent.pem') }, problems);
    const empty = path.join(dir, 'empty.pem');
    writeFileSync(empty, 'not a certificate');
    parseFetch({ FETCH_CA_FILE: empty }, problems);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^FETCH_CA_FILE: cannot read .*absent\.pem \(ENOENT\)$/);
    expect(problems[1]).toMatch(/holds no PEM certificate/);
  });
});
