/**
 * The words of a command's argument string, split on whitespace as a shell would: a "double"
 * or 'single' quoted stretch keeps its spaces and loses its quotes, so `"two words"` is one
 * word and `""` an empty one. An unclosed quote runs to the end of the string.
 */
export function words(text: string): string[] {
  const result: string[] = []
  let word = ""
  // A word that so far is only an empty quote ("") still counts as a word.
  let started = false
  let quote: string | undefined
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === '"' || char === "'") {
      quote = char
      started = true
    } else if (/\s/.test(char)) {
      if (started) result.push(word)
      word = ""
      started = false
    } else {
      word += char
      started = true
    }
  }
  if (started) result.push(word)
  return result
}
