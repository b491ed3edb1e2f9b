// Offline validation of Kubernetes manifests, without a cluster.
//
//   node validate.mjs FILE.yaml...     prints "ok FILE#N Kind/name" per
//                                      document; exit 1 on any error
//
// Each YAML document is checked twice:
//  1. by the model class of its apiVersion and kind from the npm packages
//     kubernetes-models, @kubernetes-models/prometheus-operator and
//     @kubernetes-models/cert-manager
//     (`new DaemonSet(doc).validate()`): types, formats, enums and required
//     fields, from the OpenAPI schemas of Kubernetes and of the CRDs;
//  2. for unknown fields (a misspelled `tolerations` is silently dropped by
//     an API server that is not strict), against the same packages' TypeScript
//     declarations (*.d.ts): every key must be a property of the declared
//     interface, recursively. The schemas in (1) allow additional properties,
//     so (1) alone would let typos through.
// A document whose apiVersion/kind has no model is an error, not skipped.
//
// The packages are installed by tools/setup.sh into node_modules beside this
// file (versions pinned in package-lock.json).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.join(HERE, "node_modules");

// apiVersion -> module whose exports are the model classes by kind.
const MODEL_MODULES = {
  "v1": "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "batch/v1": "kubernetes-models/batch/v1",
  "networking.k8s.io/v1": "kubernetes-models/networking.k8s.io/v1",
  "scheduling.k8s.io/v1": "kubernetes-models/scheduling.k8s.io/v1",
  "rbac.authorization.k8s.io/v1": "kubernetes-models/rbac.authorization.k8s.io/v1",
  "monitoring.coreos.com/v1":
      "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
  "cert-manager.io/v1": "@kubernetes-models/cert-manager/cert-manager.io/v1",
};

// Validates one parsed document; returns a list of error strings (empty when
// valid), each naming the field path.
export async function validateDocument(doc) {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    return ["document is not a mapping"];
  }
  const { apiVersion, kind } = doc;
  const module = MODEL_MODULES[apiVersion];
  if (!module) return [`apiVersion ${JSON.stringify(apiVersion)}: no model`];
  const models = await import(module);
  const Model = models[kind];
  if (typeof Model !== "function") {
    return [`kind ${JSON.stringify(kind)}: no model in ${apiVersion}`];
  }
  const errors = [];
  try {
    new Model(doc).validate();
  } catch (e) {
    errors.push(`schema: ${e.message}`);
  }
  const declared = lookupType(path.join(NODE_MODULES, module, `${kind}.d.ts`),
                              `I${kind}`);
  checkKnownFields(doc, declared, "", errors);
  return errors;
}

// Parses and validates every document of a YAML file.
export async function validateFile(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
  const results = [];
  for (const [i, d] of docs.entries()) {
    if (d.errors.length) {
      results.push({ index: i, errors: d.errors.map((e) => `yaml: ${e.message}`) });
      continue;
    }
    const doc = d.toJS();
    if (doc === null) continue;  // an empty document (a trailing ---)
    results.push({ index: i, doc, errors: await validateDocument(doc) });
  }
  return results;
}

// ---- Unknown-field check against the TypeScript declarations. ----

const ANY = { kind: "any" };
const declarations = new Map();  // .d.ts path -> parsed declarations

function checkKnownFields(value, type, at, errors) {
  type = type.resolve ? type.resolve() : type;
  if (value === null || value === undefined) return;
  if (type.kind === "array" && Array.isArray(value)) {
    value.forEach((v, i) => checkKnownFields(v, type.of, `${at}[${i}]`, errors));
  } else if (type.kind === "map" && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      checkKnownFields(v, type.of, `${at}.${k}`, errors);
    }
  } else if (type.kind === "object" && typeof value === "object" &&
             !Array.isArray(value)) {
    const fields = type.fields();
    for (const [k, v] of Object.entries(value)) {
      const where = at ? `${at}.${k}` : k;
      if (!fields.has(k)) {
        errors.push(`${where}: unknown field`);
      } else {
        checkKnownFields(v, fields.get(k), where, errors);
      }
    }
  }
}

function load(file) {
  if (declarations.has(file)) return declarations.get(file);
  const text = fs.readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
  const parsed = { file, imports: new Map(), aliases: new Map(),
                   types: new Map(), interfaces: new Map() };
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
    for (const name of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
      const [orig, local] = name.split(/\s+as\s+/);
      parsed.imports.set(local ?? orig, { spec: m[2], name: orig });
    }
  }
  for (const m of text.matchAll(/export\s+type\s*\{([^}]*)\}/g)) {
    for (const name of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
      const [orig, alias] = name.split(/\s+as\s+/);
      if (alias) parsed.aliases.set(alias, orig);
    }
  }
  for (const m of text.matchAll(/export\s+type\s+(\w+)\s*=\s*([^;]+);/g)) {
    parsed.types.set(m[1], m[2]);
  }
  const re = /export\s+interface\s+(\w+)(?:\s+extends\s+([^{]+))?\s*\{/g;
  for (const m of text.matchAll(re)) {
    const open = m.index + m[0].length - 1;
    parsed.interfaces.set(m[1], {
      bases: (m[2] ?? "").split(",").map((s) => s.trim()).filter(Boolean),
      body: text.slice(open + 1, matchingBrace(text, open)),
    });
  }
  declarations.set(file, parsed);
  return parsed;
}

function matchingBrace(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error(`unbalanced braces at ${open}`);
}

function resolveSpec(fromFile, spec) {
  const base = spec.startsWith(".")
      ? path.resolve(path.dirname(fromFile), spec.replace(/\.js$/, ""))
      : path.join(NODE_MODULES, spec);
  for (const f of [`${base}.d.ts`, path.join(base, "index.d.ts")]) {
    if (fs.existsSync(f)) return f;
  }
  return null;
}

// The type named `name` as declared in (or imported into) `file`.
function lookupType(file, name) {
  if (name === "TypeMeta") {
    return objectType(() => new Map([["apiVersion", ANY], ["kind", ANY]]));
  }
  if (!fs.existsSync(file)) return ANY;
  const d = load(file);
  name = d.aliases.get(name) ?? name;
  const iface = d.interfaces.get(name);
  if (iface) {
    return objectType(() => {
      const fields = new Map();
      for (const base of iface.bases) {
        const t = lookupType(file, base);
        if (t.kind === "object") for (const [k, v] of t.fields()) fields.set(k, v);
      }
      for (const [k, v] of members(file, iface.body).fields) fields.set(k, v);
      return fields;
    });
  }
  if (d.types.has(name)) return parseType(file, d.types.get(name));
  const imported = d.imports.get(name);
  if (imported) {
    const target = resolveSpec(file, imported.spec);
    return target ? lookupType(target, imported.name) : ANY;
  }
  return ANY;
}

function objectType(makeFields) {
  let fields = null;
  return { kind: "object", fields: () => (fields ??= makeFields()) };
}

// Splits an interface or object-literal body into its members at depth 0.
function members(file, body) {
  const fields = new Map();
  let index = null;
  for (const member of splitTopLevel(body, ";")) {
    const m = member.match(/^\s*(?:readonly\s+)?"?([^"?:[\s]+)"?\??\s*:\s*([\s\S]+)$/);
    const sig = member.match(/^\s*\[\s*\w+\s*:\s*string\s*\]\s*:\s*([\s\S]+)$/);
    if (sig) {
      index = lazy(() => parseType(file, sig[1]));
    } else if (m) {
      fields.set(m[1], lazy(() => parseType(file, m[2])));
    }
  }
  return { fields, index };
}

function lazy(make) {
  let t = null;
  return { resolve: () => (t ??= make()) };
}

function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ("{<([".includes(c)) depth++;
    else if ("}>)]".includes(c)) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((s) => s.trim()).filter(Boolean);
}

function parseType(file, text) {
  text = text.trim();
  const union = splitTopLevel(text, "|").filter(
      (t) => !["null", "undefined"].includes(t));
  if (union.length !== 1) {
    // Unions of literals or primitives carry no fields; a union of object
    // types is not checked field by field (none occurs in these kinds).
    return ANY;
  }
  text = union[0];
  let m;
  if ((m = text.match(/^Array<([\s\S]+)>$/))) {
    return { kind: "array", of: lazy(() => parseType(file, m[1])) };
  }
  if ((m = text.match(/^([\s\S]+)\[\]$/))) {
    return { kind: "array", of: lazy(() => parseType(file, m[1])) };
  }
  if (text.startsWith("{") && text.endsWith("}")) {
    const { fields, index } = members(file, text.slice(1, -1));
    if (index && fields.size === 0) return { kind: "map", of: index };
    return objectType(() => fields);
  }
  if (/^[A-Za-z_$][\w$]*$/.test(text) &&
      !["string", "number", "boolean", "any", "unknown", "object"].includes(text)) {
    return lookupType(file, text);
  }
  return ANY;
}

// ---- Command line. ----

async function main(files) {
  let failed = 0;
  for (const file of files) {
    for (const r of await validateFile(file)) {
      const what = r.doc ? `${r.doc.kind}/${r.doc.metadata?.name}` : "";
      if (r.errors.length) {
        failed++;
        for (const e of r.errors) console.log(`FAIL ${file}#${r.index} ${what}: ${e}`);
      } else {
        console.log(`ok ${file}#${r.index} ${what}`);
      }
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
