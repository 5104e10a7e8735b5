// query.mjs - DuckDB as an oracle for the end-to-end tests.
//
//   node query.mjs SQL
//
// Runs SQL in an in-memory DuckDB and prints each row of the result as a
// JSON object on its own line, columns in order: integers (BIGINT, HUGEINT)
// as JSON integers, other numbers as JSON numbers, NULL as null, the rest
// as strings. Exit status 1 with the error on stderr when the SQL fails.
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
    process.stderr.write('usage: node query.mjs SQL\n');
    process.exit(2);
}
const json = (v) => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
    return JSON.stringify(typeof v === 'string' ? v : String(v));
};
try {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const reader = await con.runAndReadAll(sql);
    const names = reader.columnNames();
    let out = '';
    for (const row of reader.getRows())
        out += '{' + row.map((v, i) => JSON.stringify(names[i]) + ':' + json(v)).join(',') + '}\n';
    process.stdout.write(out);
} catch (err) {
    process.stderr.write(`query.mjs: ${err.message}\n`);
    process.exit(1);
}
