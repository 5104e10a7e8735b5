// benchmarks/duckdb/formats.mjs - the DuckDB peer of benchmarks/formats.sh.
//
//   node formats.mjs --threads N --runs N --warmup N --outdir DIR ID=SQL...
//
// Runs each SQL in one in-process DuckDB (SET threads=N), 1 warm-up run
// and N timed runs of connection.runAndReadAll, timed inside node (node's
// start-up and module load are not in the figures; reading the file is, as
// read_csv and read_json read it on every run). For each ID it prints
//   RESULT id=ID rows=R median_s=M min_s=A max_s=B runs=N
// and writes DIR/ID.csv: the last run's rows, comma-separated, no header
// (numbers as DuckDB gives them, NULL as an empty field).
import { DuckDBInstance, version } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = { threads: 2, runs: 3, warmup: 1, outdir: '.', queries: [] };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--threads') args.threads = Number(argv[++i]);
    else if (a === '--runs') args.runs = Number(argv[++i]);
    else if (a === '--warmup') args.warmup = Number(argv[++i]);
    else if (a === '--outdir') args.outdir = argv[++i];
    else if (a.includes('=')) args.queries.push([a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]);
    else {
        process.stderr.write(`formats.mjs: unknown argument ${a}\n`);
        process.exit(2);
    }
}
const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'bigint' ? v.toString() : String(v));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=${args.threads}`);
await con.run(`SET TimeZone='UTC'`);
process.stdout.write(`INFO duckdb_version=${version()}\n`);
for (const [id, sql] of args.queries) {
    let rows = [];
    for (let k = 0; k < args.warmup; k++) await con.runAndReadAll(sql);
    const times = [];
    for (let k = 0; k < args.runs; k++) {
        const t0 = process.hrtime.bigint();
        const r = await con.runAndReadAll(sql);
        times.push(Number(process.hrtime.bigint() - t0) / 1e9);
        rows = r.getRows();
    }
    times.sort((x, y) => x - y);
    const med = times.length % 2 ? times[(times.length - 1) / 2]
                                 : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
    writeFileSync(join(args.outdir, `${id}.csv`), rows.map((r) => r.map(cell).join(',')).join('\n') + (rows.length ? '\n' : ''));
    process.stdout.write(`RESULT id=${id} rows=${rows.length} median_s=${med.toFixed(4)} min_s=${times[0].toFixed(4)} max_s=${times[times.length - 1].toFixed(4)} runs=${times.length}\n`);
}
