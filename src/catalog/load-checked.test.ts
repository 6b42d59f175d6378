// What the build keeps of its catalog check, and when a start-up may take it instead of checking again: only for the
// very data and options the build checked, with the same catalog as a full check builds.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CatalogError, loadCatalog, stampCheckedData } from './load.js';

const options = { marginPercent: { '*': 0 } };
const folders: string[] = [];

/** A copy of the shipped data files in a folder of its own, as a URL ending in '/'. */
function dataCopy(): URL {
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-catalog-'));
  folders.push(dir);
  cpSync(new URL('./data/', import.meta.url), dir, { recursive: true });
  return pathToFileURL(`${dir}/`);
}

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const everything = (catalog: ReturnType<typeof loadCatalog>) => [...catalog.entries(), ...catalog.lookups()];

describe('checked catalog data', () => {
  it('a start-up on the data the build checked serves the same catalog as a full check', () => {
    const dir = dataCopy();
    const full = loadCatalog(options, dir);
    stampCheckedData(options, dir);
    const kept = JSON.parse(readFileSync(new URL('checked.json', dir), 'utf8'));
    expect(kept.entries.length).toBe(everything(full).length);
    const fromChecked = loadCatalog(options, dir);
    expect(everything(fromChecked)).toStrictEqual(everything(full));
    for (const entry of everything(full)) {
      for (const name of [entry.id, ...(entry.aliases ?? [])])
        expect(fromChecked.find(name)?.id).toBe(entry.id);
    }
    const chat = fromChecked.find('openai/gpt-4.1-mini');
    if (!chat) throw new Error('no chat model');
    const example = fromChecked.example(chat);
    expect(fromChecked.validate(chat, example)).toStrictEqual(full.validate(chat, example));
  });

  it('data changed after the check is checked again, and a bad entry still stops start-up', () => {
    const dir = dataCopy();
    stampCheckedData(options, dir);
    const file = new URL('tools.json', dir);
    const tools = JSON.parse(readFileSync(file, 'utf8'));
    tools.entries[0].price = { walletMicroUsd: -5, prepaidMicroUsd: 2000 };
    writeFileSync(file, JSON.stringify(tools));
    expect(() => loadCatalog(options, dir)).toThrow(CatalogError);
  });

  it('other options than the ones checked are checked again', () => {
    const dir = dataCopy();
    stampCheckedData(options, dir);
    // A checked file that does not match what a full check would build shows which path a start-up took.
    const file = new URL('checked.json', dir);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    kept.entries = kept.entries.filter((e: { id: string }) => e.id !== 'openai/gpt-4.1-mini');
    writeFileSync(file, JSON.stringify(kept));
    expect(loadCatalog(options, dir).find('openai/gpt-4.1-mini')).toBeUndefined();
    expect(loadCatalog({ marginPercent: { '*': 10 } }, dir).find('openai/gpt-4.1-mini')?.id).toBe(
      'openai/gpt-4.1-mini',
    );
  });
});
