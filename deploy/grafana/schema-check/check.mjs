// Type-checks ../ringbus-dashboard.json against @grafana/schema's Dashboard (the classic model of
// schemaVersion 39): with TypeScript's excess-property checks, an unknown or misspelt field, a
// missing required one or a wrong type fails. The import-only members (__inputs, __elements,
// __requires) are not part of the model and are left out. TypeScript enums are nominal, so the
// few enum-typed strings are written as the enum members they equal.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dashboard = JSON.parse(readFileSync(join(here, '..', 'ringbus-dashboard.json'), 'utf8'));
for (const key of ['__inputs', '__elements', '__requires']) {
  delete dashboard[key];
}
const enums = {
  '"mode": "absolute"': '"mode": ThresholdsMode.Absolute',
  '"mode": "percentage"': '"mode": ThresholdsMode.Percentage',
  '"mode": "palette-classic"': '"mode": FieldColorModeId.PaletteClassic',
  '"mode": "thresholds"': '"mode": FieldColorModeId.Thresholds',
  '"mode": "fixed"': '"mode": FieldColorModeId.Fixed',
};
let literal = JSON.stringify(dashboard, null, 1);
for (const [text, member] of Object.entries(enums)) {
  literal = literal.split(text).join(member);
}
const file = join(here, 'dashboard.gen.ts');
writeFileSync(file, "import { Dashboard, FieldColorModeId, ThresholdsMode } from '@grafana/schema';\n"
  + `export const dashboard: Dashboard = ${literal};\n`);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022',
    '--module', 'esnext', '--moduleResolution', 'bundler', file], { stdio: 'inherit' });
} catch {
  console.error('ringbus-dashboard.json does not type-check as a Grafana Dashboard (see above)');
  process.exit(1);
}
console.log('ringbus-dashboard.json type-checks as a Grafana Dashboard (@grafana/schema)');
