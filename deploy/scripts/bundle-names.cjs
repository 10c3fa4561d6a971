'use strict';
// esbuild's keepNames (bundle.mjs needs it: it renames some classes, `class OrderBook2`, and the
// name is what Nest's loggers and TypeORM's entities go by) wraps every named function in
// `__name(fn, "name")`, an Object.defineProperty, also a closure made on each call: three per
// bookTicker answer cost 6 % of the gateway thread's time. Where JavaScript gives the function that
// name already (`const px = v => …`, `function f() {}`), the wrapper is blanked out with spaces, so
// every later column, and the source map, stays where it was.
const { readFileSync, writeFileSync } = require('node:fs');
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const acorn = require('acorn');

/** The name JavaScript gives an anonymous function that is `node`, the child of `parent`. */
function nameFromPlace(parent, node) {
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.init === node && parent.id.type === 'Identifier' ? parent.id.name : undefined;
    case 'AssignmentExpression':
      return parent.operator === '=' && parent.right === node && parent.left.type === 'Identifier'
        ? parent.left.name
        : undefined;
    case 'AssignmentPattern':
      return parent.right === node && parent.left.type === 'Identifier' ? parent.left.name : undefined;
    case 'Property':
      if (parent.value !== node || parent.computed || parent.kind !== 'init' || parent.method)
        return undefined;
      return keyName(parent.key);
    case 'PropertyDefinition':
      return parent.value === node && !parent.computed ? keyName(parent.key) : undefined;
    default:
      return undefined;
  }
}

function keyName(key) {
  if (key.type === 'Identifier') return key.name;
  return key.type === 'Literal' && typeof key.value === 'string' ? key.value : undefined;
}

/** `__name(target, "text")`: its target and text, or undefined for any other node. */
function nameCall(node) {
  if (node?.type !== 'CallExpression' || node.callee.type !== 'Identifier' || node.callee.name !== '__name')
    return undefined;
  const [target, text] = node.arguments;
  if (node.arguments.length !== 2 || text.type !== 'Literal' || typeof text.value !== 'string')
    return undefined;
  return { target, name: text.value };
}

/**
 * The name a function expression gets without the wrapper: its own, or its place's (the wrapping
 * `call`'s, in `parent`). Not classes: a class may define a static `name` of its own, and esbuild
 * names classes in a static block, not with a wrapper.
 */
function ownName(target, call, parent) {
  if (target.type !== 'ArrowFunctionExpression' && target.type !== 'FunctionExpression') return undefined;
  return target.id ? target.id.name : parent && nameFromPlace(parent, call);
}

const STATEMENT_LISTS = {
  Program: 'body',
  BlockStatement: 'body',
  StaticBlock: 'body',
  SwitchCase: 'consequent',
};

/**
 * The code with every `__name` wrapper that changes nothing blanked out: the same length, the same
 * line breaks. Returns the code and how many wrappers were blanked. With `modulesUnder` ("dist/"),
 * only inside the bundle's modules from there (this repository's own, parsed alone: the whole
 * bundle takes three times as long, and the dependencies' closures are not where the time goes).
 */
function blankNoOpNames(code, { modulesUnder } = {}) {
  const options = { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true };
  const roots = [];
  if (modulesUnder === undefined) roots.push(acorn.parse(code, options));
  else {
    // esbuild wraps each CommonJS module: `__commonJS({"dist/libs/….js"(exports2){…}})`.
    const opening = '__commonJS({' + JSON.stringify(modulesUnder).slice(0, -1);
    for (let at = code.indexOf(opening); at >= 0; at = code.indexOf(opening, at)) {
      const root = acorn.parseExpressionAt(code, at + '__commonJS('.length, options);
      roots.push(root);
      at = root.end;
    }
  }
  const blanks = []; // [start, end) ranges to overwrite with spaces
  let wrappers = 0;
  const declared = (list, name) => list.some((s) => s.type === 'FunctionDeclaration' && s.id?.name === name);

  // Iterative: a long chain of `a + b + …` in a dependency nests deeper than the call stack goes.
  const stack = roots.map((root) => [root, null]);
  while (stack.length > 0) {
    const [node, parent] = stack.pop();
    const call = nameCall(node);
    if (call && ownName(call.target, node, parent) === call.name) {
      // `__name(` → `      (` and `,"px")` → `      )`: the parentheses keep the expression whole.
      // From the comma before the text: the target may close parentheses of its own after its end.
      blanks.push(
        [node.start, node.callee.end],
        [code.lastIndexOf(',', node.arguments[1].start), node.end - 1],
      );
      wrappers++;
    }
    const listKey = STATEMENT_LISTS[node.type];
    if (listKey) {
      for (const s of node[listKey]) {
        const c = s.type === 'ExpressionStatement' ? nameCall(s.expression) : undefined;
        // `function f(){}` … `__name(f, "f")`: the declaration's name is that already. The `;` stays.
        if (
          c &&
          c.target.type === 'Identifier' &&
          c.target.name === c.name &&
          declared(node[listKey], c.name)
        ) {
          blanks.push([s.expression.start, s.expression.end]);
          wrappers++;
        }
      }
    }
    for (const key in node) {
      const v = node[key];
      if (v === null || typeof v !== 'object') continue;
      if (Array.isArray(v)) {
        for (const child of v) if (child && typeof child.type === 'string') stack.push([child, node]);
      } else if (typeof v.type === 'string') stack.push([v, node]);
    }
  }

  blanks.sort((a, b) => a[0] - b[0]);
  const parts = [];
  let at = 0;
  for (const [start, end] of blanks) {
    parts.push(code.slice(at, start), ' '.repeat(end - start));
    at = end;
  }
  parts.push(code.slice(at));
  return { code: parts.join(''), blanked: wrappers };
}

module.exports = { blankNoOpNames };

// As bundle.mjs's worker: blanks the file it is given, in place, and answers how many.
if (!isMainThread && workerData?.file) {
  const r = blankNoOpNames(readFileSync(workerData.file, 'utf8'), { modulesUnder: 'dist/' });
  writeFileSync(workerData.file, r.code);
  parentPort.postMessage(r.blanked);
}
