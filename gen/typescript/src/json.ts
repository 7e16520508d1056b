// Exact amounts: JSON numbers under the APIs' amount properties are turned into JSON strings
// before the text is parsed, so that `1250.50` stays "1250.50" (JSON.parse would give 1250.5)
// and amounts beyond 2^53 keep every digit.

/**
 * Returns the JSON text `text` with every number that is the value of a property named in
 * `keys` written as a string ("1250.50"); everything else is copied unchanged. Text that is
 * not JSON is returned as it was scanned, for JSON.parse to reject.
 */
export function quoteDecimals(text: string, keys: ReadonlySet<string>): string {
  // stack holds, per open container, whether it is an object, the key whose value comes next
  // (undefined while a key is expected) and whether its colon was read. Text is copied in
  // spans: only the quotes around an amount are added.
  const stack: { object: boolean; key: string | undefined; afterColon: boolean }[] = [];
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) { j = n; break; }
        let backslashes = 0;
        for (let k = q - 1; k > i && text.charCodeAt(k) === 0x5c; k--) backslashes++;
        j = q;
        if (backslashes % 2 === 0) break;
        j = q + 1;
      }
      const top = stack[stack.length - 1];
      if (top?.object && !top.afterColon) {
        const raw = text.slice(i + 1, j);
        if (raw.indexOf("\\") < 0) {
          top.key = raw;
        } else {
          try {
            top.key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            top.key = undefined;
          }
        }
      }
      i = j + 1;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) j++;
        else break;
      }
      const top = stack[stack.length - 1];
      if (top?.object && top.afterColon && top.key !== undefined && keys.has(top.key)) {
        parts.push(text.slice(copied, i), '"', text.slice(i, j), '"');
        copied = j;
      }
      i = j;
      continue;
    }
    switch (c) {
      case 0x7b /* { */:
        stack.push({ object: true, key: undefined, afterColon: false });
        break;
      case 0x5b /* [ */:
        stack.push({ object: false, key: undefined, afterColon: false });
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        break;
      case 0x3a /* : */: {
        const top = stack[stack.length - 1];
        if (top) top.afterColon = true;
        break;
      }
      case 0x2c /* , */: {
        const top = stack[stack.length - 1];
        if (top?.object) {
          top.afterColon = false;
          top.key = undefined;
        }
        break;
      }
    }
    i++;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}

/** Parses JSON text with the numbers under `keys` kept as exact strings. */
export function parseExact<T>(text: string, keys: ReadonlySet<string>): T {
  return JSON.parse(quoteDecimals(text, keys)) as T;
}
