// tests/support/duckdb/kv_oracle.mjs - DuckDB as the oracle of dmap's results
// over a generickv log.
//
//   node kv_oracle.mjs --kv FILE --columns a,b,... --out DIR SQL...
//
// Reads FILE as generickv lines (`key=value` tokens separated by `|`, split
// on the first `=`, the later of two equal keys winning: dmap's generickv
// format); every column is VARCHAR and a key a line lacks is NULL. Loads
// them into table `t`, runs each SQL and writes its rows to DIR/1.csv,
// DIR/2.csv, ... as dmap writes a CSV outfile's rows: no header, a NULL as
// an empty cell, a value quoted when it holds a comma, a quote or a line
// break. The SQL formats numbers itself (printf('%f', x) is C's "%f").
//
// @duckdb/node-api is the tests' (tests/support/duckdb, installed by
// scripts/deps.sh);
// DUCKDB_NODE_DIR overrides where it is. Exit status 77 when it is not
// installed, so that a test can skip.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { csvCell } from './cells.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const moduleDir = process.env.DUCKDB_NODE_DIR ?? here;
let duckdb;
try {
    duckdb = createRequire(join(moduleDir, 'package.json'))('@duckdb/node-api');
} catch (err) {
    process.stderr.write(`kv_oracle: @duckdb/node-api is not installed in ${moduleDir} ` +
        `(scripts/deps.sh runs npm ci there): ${err.message}\n`);
    process.exit(77);
}

const argv = process.argv.slice(2);
const opt = { kv: null, columns: null, out: null, sql: [] };
for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
    case '--kv': opt.kv = argv[++i]; break;
    case '--columns': opt.columns = argv[++i].split(','); break;
    case '--out': opt.out = argv[++i]; break;
    default: opt.sql.push(argv[i]);
    }
}
if (!opt.kv || !opt.columns || !opt.out || !opt.sql.length) {
    process.stderr.write('usage: node kv_oracle.mjs --kv FILE --columns a,b,... --out DIR SQL...\n');
    process.exit(2);
}


const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();
const quoteId = (c) => `"${c.replace(/"/g, '""')}"`;
await con.run(`CREATE TABLE t (${opt.columns.map((c) => `${quoteId(c)} VARCHAR`).join(', ')})`);
const appender = await con.createAppender('t');
const index = new Map(opt.columns.map((c, i) => [c, i]));
for (const line of readFileSync(opt.kv, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const row = new Array(opt.columns.length).fill(null);
    for (const tok of trimmed.split('|')) {
        const eq = tok.indexOf('=');
        if (eq < 0) continue;
        const k = index.get(tok.slice(0, eq));
        if (k !== undefined) row[k] = tok.slice(eq + 1);
    }
    for (const v of row) {
        if (v === null) appender.appendNull();
        else appender.appendVarchar(v);
    }
    appender.endRow();
}
appender.flushSync();
appender.closeSync();

let n = 0;
for (const sql of opt.sql) {
    n++;
    const rows = await (await con.run(sql)).getRowsJS();
    const text = rows.map((r) => r.map(csvCell).join(',')).join('\n');
    writeFileSync(join(opt.out, `${n}.csv`), text.length ? text + '\n' : '');
}
con.closeSync();
instance.closeSync();
