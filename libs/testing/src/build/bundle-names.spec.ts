import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO_ROOT } from '../exchange-process';

// The build script's own module (CommonJS, as bundle.mjs's worker threads load it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { blankNoOpNames } = require(join(REPO_ROOT, 'deploy/scripts/bundle-names.cjs')) as {
  blankNoOpNames: (code: string, o?: { modulesUnder?: string }) => { code: string; blanked: number };
};

/** esbuild's output shapes with keepNames, one of each place a function gets its name from. */
const SAMPLE = [
  'var __defProp=Object.defineProperty;var __name=(target,value)=>__defProp(target,"name",{value,configurable:true});',
  'function top(){return 1}__name(top,"top");',
  'function renamed2(){}__name(renamed2,"renamed");',
  'var Cls=class Cls2{static{__name(this,"Cls")}};',
  'class K{field=__name(()=>5,"field")}',
  'var Named=__name(class{static name="own"},"Named");class D{static name="d2"}__name(D,"D");',
  'function outer(){const px=__name(v=>v+1,"px");',
  'const o={a:__name(()=>1,"a"),"b c":__name(function(){},"b c")};let q;q=__name(()=>2,"q");',
  'const paren=__name(((x)=>x),"paren");const named=__name(function inner(){},"inner");',
  'const other=__name(()=>3,"notOther");function d(f=__name(()=>4,"f")){return f}__name(d,"d");',
  'return{px,a:o.a,bc:o["b c"],q,paren,named,other,f:d(),d,Cls,top,renamed2,field:new K().field,Named,D}}',
  'module.exports=outer;',
].join('\n');

/** The `.name` of every function the sample's `outer` returns. */
function namesOf(code: string): Record<string, string> {
  const module = { exports: undefined as unknown as () => Record<string, { name: string }> };
  new Function('module', code)(module);
  return Object.fromEntries(Object.entries(module.exports()).map(([k, f]) => [k, f.name]));
}

describe('bundle names (deploy/scripts/bundle-names.cjs)', () => {
  it('blanks the wrappers that change no name, keeps the others, and moves no character', () => {
    const { code, blanked } = blankNoOpNames(SAMPLE);
    expect(namesOf(code)).toEqual(namesOf(SAMPLE));
    expect(namesOf(code)).toMatchObject({
      renamed2: 'renamed',
      Cls: 'Cls',
      other: 'notOther',
      px: 'px',
      // A class's own static `name` is replaced by the wrapper: classes keep theirs.
      Named: 'Named',
      D: 'D',
    });
    // Same length and line breaks: the source map's every position still holds.
    expect(code.length).toBe(SAMPLE.length);
    expect(code.split('\n').map((l) => l.length)).toEqual(SAMPLE.split('\n').map((l) => l.length));
    // top, field, px, a, b c, q, paren, inner, f, d blanked; renamed, Cls, notOther, Named, D kept.
    expect(blanked).toBe(10);
    expect(code.match(/__name\(/g)).toHaveLength(5);
    expect(code).toContain('__name(renamed2,"renamed")');
    expect(code).toContain('static{__name(this,"Cls")}');
    expect(code).toContain('__name(()=>3,"notOther")');
  });

  it('leaves code without wrappers as it is', () => {
    const plain = 'const f=()=>1;function g(){return f()}module.exports=()=>({f,g});';
    expect(blankNoOpNames(plain)).toEqual({ code: plain, blanked: 0 });
  });

  it('with modulesUnder, only inside the bundle modules from there', () => {
    const bundle = [
      'var __name=(t,v)=>Object.defineProperty(t,"name",{value:v,configurable:true});',
      'var __commonJS=(cb,mod)=>function(){return mod||(0,cb[Object.keys(cb)[0]])((mod={exports:{}}).exports,mod),mod.exports};',
      'var require_own=__commonJS({"dist/libs/own.js"(exports2){const f=__name(()=>1,"f");exports2.f=f}});',
      'var require_dep=__commonJS({"node_modules/dep/index.js"(exports2){const g=__name(()=>2,"g");exports2.g=g}});',
      'module.exports={own:require_own(),dep:require_dep()};',
    ].join('\n');
    const { code, blanked } = blankNoOpNames(bundle, { modulesUnder: 'dist/' });
    expect(blanked).toBe(1);
    expect(code).toContain('const f=      (()=>1    );');
    expect(code).toContain('const g=__name(()=>2,"g")');
    const module = { exports: {} as { own: { f: () => number }; dep: { g: () => number } } };
    new Function('module', code)(module);
    expect([module.exports.own.f.name, module.exports.own.f(), module.exports.dep.g.name]).toEqual([
      'f',
      1,
      'g',
    ]);
  });

  it('the build applied it: a bundle has no wrapper left that changes no name, and its closures keep theirs', () => {
    ensureBuilt();
    const code = readFileSync(join(REPO_ROOT, 'dist/apps/gateway/src/main.js'), 'utf8');
    expect(blankNoOpNames(code, { modulesUnder: 'dist/' }).blanked).toBe(0);
    // bookTicker's per-answer formatters (apps/gateway/src/markets): no defineProperty per call.
    expect(code).toMatch(/const px= +\(v=>/);
  });
});
