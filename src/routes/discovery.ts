/**
 * Discovery routes: /openapi.json, /skill.md, /llms.txt and /.well-known/x402, built once from the app's own
 * registries.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { buildLlmsTxt, type LlmsEntry } from '../discovery/llms-txt.js';
import { buildOpenApi } from '../discovery/openapi.js';
import { buildSkillMd, type SkillSources } from '../discovery/skill.js';
import { buildWellKnownX402 } from '../discovery/well-known-x402.js';
import type { AppEnv } from '../http/env.js';

export interface DiscoveryInputs {
  baseUrl: string;
  rails: SkillSources['rails'];
  catalog: SkillSources['catalog'];
  x402Resources: string[];
  /** The catalog entries that can run here (for /llms.txt). */
  entries: LlmsEntry[];
}

const docRoute = (path: string, summary: string, type: string) =>
  createRoute({
    method: 'get',
    path,
    tags: ['discovery'],
    summary,
    responses: { 200: { description: summary, content: { [type]: { schema: z.unknown() } } } },
  });

type OpenApiDoc = ReturnType<typeof buildOpenApi>;

function routesOf(doc: OpenApiDoc): SkillSources['routes'] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item ?? {})
      .filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
      .map(([method, op]) => {
        const o = op as { summary?: string; tags?: string[] };
        return { method: method.toUpperCase(), path, summary: o.summary ?? '', tag: o.tags?.[0] ?? 'other' };
      }),
  );
}

export function mountDiscoveryRoutes(app: OpenAPIHono<AppEnv>, readInputs: () => DiscoveryInputs): void {
  // Built on first use: by then every route module has registered its paths. Nothing here changes at run time.
  let doc: OpenApiDoc | undefined;
  let skill: string | undefined;
  let llms: string | undefined;
  let x402: ReturnType<typeof buildWellKnownX402> | undefined;
  let cached: DiscoveryInputs | undefined;
  const inputs = () => {
    cached ??= readInputs();
    return cached;
  };
  const openapi = () => {
    doc ??= buildOpenApi(app, inputs().baseUrl);
    return doc;
  };
  app.openAPIRegistry.registerPath(
    docRoute('/openapi.json', 'OpenAPI 3.1 description of every route', 'application/json'),
  );
  app.openAPIRegistry.registerPath(
    docRoute('/skill.md', 'Agent onboarding document (version 1)', 'text/markdown'),
  );
  app.openAPIRegistry.registerPath(
    docRoute('/llms.txt', 'Index for language-model agents (llmstxt.org)', 'text/markdown'),
  );
  app.openAPIRegistry.registerPath(
    docRoute('/.well-known/x402', 'x402 resource discovery', 'application/json'),
  );

  app.get('/openapi.json', (c) => c.json(openapi()));
  app.get('/skill.md', (c) => {
    const i = inputs();
    skill ??= buildSkillMd({
      baseUrl: i.baseUrl,
      routes: routesOf(openapi()),
      rails: i.rails,
      catalog: i.catalog,
    });
    return c.body(skill, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });
  app.get('/llms.txt', (c) => {
    const i = inputs();
    llms ??= buildLlmsTxt({ baseUrl: i.baseUrl, entries: i.entries, rails: i.rails.map((r) => r.id) });
    return c.body(llms, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });
  app.get('/.well-known/x402', (c) => {
    x402 ??= buildWellKnownX402(inputs().baseUrl, inputs().x402Resources);
    return c.json(x402);
  });
}
