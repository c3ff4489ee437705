import type { App } from '../../app-types.js';
import type { OpenApiDocuments } from '../../plugins/openapi.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';

type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** How deep nested object properties are spelled out in place (deeper ones name their schema). */
const NESTING_MAX = 2;

const asObject = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const asText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const anchor = (text: string): string => text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** Text of the document (Markdown-ish) as paragraphs of plain text: `code` kept as code, the rest escaped. */
function prose(text: string | undefined): Html {
  if (text === undefined || text.trim() === '') return html``;
  return html`${text
    .split(/\n{2,}/)
    .map((paragraph) => html`<p>${paragraph.split(/(`[^`]+`)/).map((part) => (part.startsWith('`') && part.endsWith('`') && part.length > 1 ? html`<code>${part.slice(1, -1)}</code>` : part))}</p>`)}`;
}

/** A schema as a short type: a link to a named schema, `array of …`, `one of …`, a type with its enum or format. */
function typeOf(schema: Json | undefined): Html {
  if (schema === undefined) return html`any`;
  const ref = asText(schema.$ref);
  if (ref !== undefined) return html`<a href="#schema-${anchor(refName(ref))}">${refName(ref)}</a>`;
  const choices = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined)?.map(asObject);
  if (choices !== undefined) return html`${choices.map((choice, i) => html`${i === 0 ? '' : ' or '}${typeOf(choice)}`)}`;
  const type = Array.isArray(schema.type) ? schema.type.map(String).join(' or ') : (asText(schema.type) ?? (schema.properties === undefined ? 'any' : 'object'));
  if (type === 'array') return html`array of ${typeOf(asObject(schema.items))}`;
  const values = Array.isArray(schema.enum) ? schema.enum : schema.const !== undefined ? [schema.const] : undefined;
  const format = asText(schema.format);
  return html`${type}${format === undefined ? '' : html` (${format})`}${values === undefined ? '' : html`, one of ${values.map((value, i) => html`${i === 0 ? '' : ', '}<code>${JSON.stringify(value)}</code>`)}`}`;
}

/** An object schema's properties as a list (name, type, required, description), nested objects spelled out to NESTING_MAX. */
function properties(schema: Json | undefined, depth = 0): Html {
  const props = asObject(schema?.properties);
  if (props === undefined || Object.keys(props).length === 0) return html``;
  const required = new Set(Array.isArray(schema?.required) ? schema.required.map(String) : []);
  return html`<ul class="fields">${Object.entries(props).map(([name, value]) => {
    const prop = asObject(value);
    const nested = prop !== undefined && prop.$ref === undefined && depth < NESTING_MAX ? properties(asObject(prop.type === 'array' ? prop.items : prop), depth + 1) : html``;
    return html`<li><code>${name}</code> <span class="hint">${typeOf(prop)}${required.has(name) ? ', required' : ''}</span>${prose(asText(prop?.description))}${nested}</li>`;
  })}</ul>`;
}

function operation(path: string, method: string, op: Json): Html {
  const id = `op-${method}-${anchor(path)}`;
  const parameters = (Array.isArray(op.parameters) ? op.parameters : []).map(asObject).filter((p): p is Json => p !== undefined);
  const body = asObject(asObject(asObject(asObject(op.requestBody)?.content)?.['application/json'])?.schema);
  const responses = Object.entries(asObject(op.responses) ?? {});
  return html`<section class="operation" aria-labelledby="${id}">
<h3 id="${id}"><span class="badge">${method.toUpperCase()}</span> <code>${path}</code></h3>
${prose(asText(op.summary))}${prose(asText(op.description))}
${parameters.length === 0
  ? ''
  : html`<h4>Parameters</h4><ul class="fields">${parameters.map((parameter) => html`<li><code>${asText(parameter.name) ?? ''}</code> <span class="hint">in ${asText(parameter.in) ?? ''}, ${typeOf(asObject(parameter.schema))}${parameter.required === true ? ', required' : ''}</span>${prose(asText(parameter.description))}</li>`)}</ul>`}
${body === undefined ? '' : html`<h4>Request body</h4><p>${typeOf(body)}</p>${properties(body)}`}
<h4>Responses</h4>
<dl class="facts">${responses.map(([status, value]) => {
    const response = asObject(value);
    const schema = asObject(asObject(asObject(response?.content)?.['application/json'])?.schema);
    return html`<dt>${status}</dt><dd>${asText(response?.description) ?? ''}${schema === undefined ? '' : html` <span class="hint">(${typeOf(schema)})</span>`}</dd>`;
  })}</dl>
</section>`;
}

/** The whole reference from the partner OpenAPI document: contents, every operation by tag, every schema. */
function reference(document: Json): Html {
  const paths = Object.entries(asObject(document.paths) ?? {});
  const operations = paths.flatMap(([path, item]) => METHODS.flatMap((method) => {
    const op = asObject(asObject(item)?.[method]);
    return op === undefined ? [] : [{ path, method, op }];
  }));
  const schemas = Object.entries(asObject(asObject(document.components)?.schemas) ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const info = asObject(document.info);
  return html`${prose(asText(info?.description))}
<p>Version ${asText(info?.version) ?? ''}. The machine-readable document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${asText(document.openapi) ?? ''}). Authenticate with <code>Authorization: Bearer &lt;key_id&gt;.&lt;secret&gt;</code> or <code>X-API-Key</code>; your keys are on the <a href="/cabinet/keys">API keys</a> page of the cabinet.</p>
<nav aria-label="API reference contents" class="reference-contents">
<h2>Contents</h2>
<ul>${operations.map(({ path, method }) => html`<li><a href="#op-${method}-${anchor(path)}">${method.toUpperCase()} ${path}</a></li>`)}</ul>
<p><a href="#schemas">Schemas</a></p>
</nav>
<h2>Operations</h2>
${operations.map(({ path, method, op }) => operation(path, method, op))}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, value]) => {
    const schema = asObject(value);
    return html`<section class="operation" aria-labelledby="schema-${anchor(name)}"><h3 id="schema-${anchor(name)}">${name}</h3>${prose(asText(schema?.description))}<p>${schema?.properties === undefined ? typeOf(schema) : html`object`}</p>${properties(schema)}</section>`;
  })}
<p><a href="/cabinet">Back to the cabinet</a></p>`;
}

/**
 * The API reference (/cabinet/api-reference): the partner OpenAPI document rendered on the
 * server in the cabinet's own layout, readable by keyboard and screen reader with no script
 * (docs/adr/0051-cabinet-mail-period-responses-reference.md says why this and not Swagger UI). Public, as the document is;
 * the cabinet's navigation links here and the page links back.
 */
export function registerCabinetApiReference(app: App, documents: Pick<OpenApiDocuments, 'partner'>): void {
  let rendered: string | undefined;
  app.get('/cabinet/api-reference', { schema: { hide: true } }, async (_request, reply) => {
    // The document is fixed once the routes are registered: rendered once.
    rendered ??= page({ title: 'API reference', body: reference(documents.partner()) });
    return reply.type('text/html; charset=utf-8').send(rendered);
  });
}
