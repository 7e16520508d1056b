// node --test dist/json.test.js (run by TestTypeScriptSDKPackage after the build).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseExact, quoteDecimals } from "./json.js";

const keys = new Set(["amount", "balance"]);

test("quoteDecimals quotes the numbers under the amount keys and nothing else", () => {
  const cases: [string, string][] = [
    ['{"amount":1250.50}', '{"amount":"1250.50"}'],
    ['{"amount": -89.90, "count": 3}', '{"amount": "-89.90", "count": 3}'],
    ['{"balance":null,"amount":1e3}', '{"balance":null,"amount":"1e3"}'],
    ['{"data":{"transactions":[{"amount":98765432109876543.21,"line":7}]}}', '{"data":{"transactions":[{"amount":"98765432109876543.21","line":7}]}}'],
    ['{"note":"amount","x":1.5}', '{"note":"amount","x":1.5}'],
    ['{"a\\"mount":1.10,"amount":"2.20"}', '{"a\\"mount":1.10,"amount":"2.20"}'],
    ['[1.10,{"amount":[1.10]}]', '[1.10,{"amount":[1.10]}]'],
    ['{"x":{"amount":0},"amount":-0.01}', '{"x":{"amount":"0"},"amount":"-0.01"}'],
    ['{"d":"ends in a backslash \\\\","amount":2.50}', '{"d":"ends in a backslash \\\\","amount":"2.50"}'],
    ['{"d":"a \\"quoted\\" word, amount: 3","amount":1E+2}', '{"d":"a \\"quoted\\" word, amount: 3","amount":"1E+2"}'],
    ['{"amount":1.5}', '{"amount":"1.5"}'],
    ['{"count":2}', '{"count":2}'],
  ];
  for (const [input, want] of cases) assert.equal(quoteDecimals(input, keys), want, input);
});

test("parseExact keeps trailing zeros and digits past 2^53", () => {
  const v = parseExact<{ amount: string; n: number }>('{"amount":9007199254740993.10,"n":2}', keys);
  assert.deepEqual(v, { amount: "9007199254740993.10", n: 2 });
  assert.throws(() => parseExact("{amount:1}", keys));
});
