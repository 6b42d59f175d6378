// Module hooks for a worker thread started from the TypeScript sources (under Vitest; the built service's workers
// load dist/ and never use them): a relative `.js` specifier with no such file resolves to the `.ts` file beside
// it, as the sources write their imports, and a `.ts` file is loaded with its types stripped by the TypeScript
// compiler (one file at a time, no type checking).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:'))) {
    const url = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(url))) {
      const source = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(source))) return next(source.href, context);
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const { outputText } = ts.transpileModule(readFileSync(fileURLToPath(url), 'utf8'), {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
