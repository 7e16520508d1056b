// Exact amounts: JSON numbers under the APIs' amount properties are turned into JSON strings
// before the text is parsed, so that `1250.50` stays "1250.50" (JSON.parse would give 1250.5)
// and amounts beyond 2^53 keep every digit.

/**
 * Returns the JSON text `text` with every number that is the value of a property named in
 * `keys` written as a string ("1250.50"); everything else is copied unchanged. Text that is
 * not JSON is returned as it was scanned, for JSON.parse to reject.
 */
export function quoteDecimals(text: string, keys: ReadonlySet<string>): string {
  // stack holds, per open container, whether it is an object and, for objects, the key whose
  // value comes next (undefined while a key is expected).
  const stack: { object: boolean; key: string | undefined; afterColon: boolean }[] = [];
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const token = text.slice(i, j + 1);
      const top = stack[stack.length - 1];
      if (top?.object && !top.afterColon) {
        try {
          top.key = JSON.parse(token) as string;
        } catch {
          top.key = undefined;
        }
      }
      out += token;
      i = j + 1;
      continue;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
      const token = m ? m[0] : c;
      const top = stack[stack.length - 1];
      out += top?.object && top.afterColon && top.key !== undefined && keys.has(top.key) ? `"${token}"` : token;
      i += token.length;
      continue;
    }
    switch (c) {
      case "{":
        stack.push({ object: true, key: undefined, afterColon: false });
        break;
      case "[":
        stack.push({ object: false, key: undefined, afterColon: false });
        break;
      case "}":
      case "]":
        stack.pop();
        break;
      case ":": {
        const top = stack[stack.length - 1];
        if (top) top.afterColon = true;
        break;
      }
      case ",": {
        const top = stack[stack.length - 1];
        if (top?.object) {
          top.afterColon = false;
          top.key = undefined;
        }
        break;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** Parses JSON text with the numbers under `keys` kept as exact strings. */
export function parseExact<T>(text: string, keys: ReadonlySet<string>): T {
  return JSON.parse(quoteDecimals(text, keys)) as T;
}
