// tests/support/duckdb/query.mjs - DuckDB as the e2e tests' oracle.
//
//   node query.mjs 'SQL'
//
// Runs SQL in an in-memory DuckDB (@duckdb/node-api, installed here by
// scripts/deps.sh: npm ci) and prints the rows on stdout as CSV without a
// header, quoted as dmap's CSV outfiles quote (a value with a comma, a
// quote or a line break is quoted, quotes doubled), NULL as the empty
// string. Exit 2 on an SQL error, with DuckDB's message on stderr.
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
    process.stderr.write('usage: node query.mjs SQL\n');
    process.exit(2);
}
const csv = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
try {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const reader = await con.runAndReadAll(sql);
    const out = reader.getRows().map((row) => row.map(csv).join(',')).join('\n');
    process.stdout.write(out ? out + '\n' : '');
} catch (err) {
    process.stderr.write(`duckdb: ${err.message}\n`);
    process.exit(2);
}
