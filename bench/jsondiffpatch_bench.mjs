// Time jsondiffpatch's diff of two JSON files (parsing excluded); print the best time in ms.
// Usage: node bench/jsondiffpatch_bench.mjs left.json right.json [repeats]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as jsondiffpatch from "jsondiffpatch";

const [left, right, repeats = "3"] = process.argv.slice(2);
const a = JSON.parse(readFileSync(left, "utf8"));
const b = JSON.parse(readFileSync(right, "utf8"));
// objectHash by id lets arrays of records be matched as jsondiffpatch recommends for real data.
const differ = jsondiffpatch.create({ objectHash: (obj, index) => obj?.id ?? `$$index:${index}` });
let best = Infinity;
let delta;
for (let i = 0; i < Number(repeats); i++) {
  const started = performance.now();
  delta = differ.diff(a, b);
  best = Math.min(best, performance.now() - started);
}
console.log(JSON.stringify({ ms: best, changed: delta ? Object.keys(delta).length : 0 }));
