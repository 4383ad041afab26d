// Word-list lookup, the Node.js entry point of a method that ships two (translate.py is the
// other), in champollion's method shape: translate(sources, context) answers by position.
// Both tokenize by one rule written out in README.md, so both give the same output.
'use strict';

const fs = require('fs');
const path = require('path');

const BUNDLED = path.join(__dirname, 'eng-crk.tsv');
// Runs of letters and marks (Unicode categories L and M), joined by single internal
// apostrophes or hyphens.
const WORD = /[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*/gu;

function readWordlist(file) {
  const table = new Map();
  fs.readFileSync(file, 'utf8').split('\n').forEach((line, at) => {
    if (!line.trim() || line.startsWith('#')) return;
    const tab = line.indexOf('\t');
    const target = tab < 0 ? '' : line.slice(tab + 1).trim();
    if (!target) throw new Error(`${file}: line ${at + 1}: expected source<TAB>target`);
    const source = line.slice(0, tab).trim().toLowerCase();
    if (!table.has(source)) table.set(source, target);
  });
  return table;
}

let table = new Map();

module.exports = {
  name: 'LookupMethod',
  cacheable: false,

  prepare(context) {
    table = readWordlist(context.methodArgs.wordlist || BUNDLED);
  },

  async translate(sources) {
    return sources.map((source) => {
      const found = source.match(WORD) || [];
      const unknown = found.filter((word) => !table.has(word.toLowerCase()));
      return {
        predicted: found.map((word) => table.get(word.toLowerCase()) ?? word).join(' '),
        tool_calls: [{ tool: 'wordlist_lookup', words: found.length }],
        tool_call_count: 1,
        metadata: { unknown_words: unknown },
      };
    });
  },
};
