// better-sqlite3 for Electron, built on the side. The Node tests and the CLI load
// node_modules/better-sqlite3's own build (Node's ABI); Electron needs one built against its
// headers. So a COPY of the package is rebuilt with @electron/rebuild in a scratch folder, and
// only the resulting better_sqlite3.node is kept, in build/native/electron-<v>-<platform>-<arch>/
// (electron/main/paths.ts looks there; a packaged app gets it as a resource).
import fs from 'node:fs';
import path from 'node:path';

export const NATIVE_FILE = 'better_sqlite3.node';

/** A failure the user can act on: printed as one message, without a stack trace. */
export class BuildError extends Error {}

export function nativeBuildFolder(root, electronVersion, platform, arch) {
  return path.join(root, 'build', 'native', `electron-${electronVersion}-${platform}-${arch}`);
}

/** Node's version is at least major.minor, else a BuildError naming what needs it. */
export function requireNode(major, minor, what, version = process.versions.node) {
  const [haveMajor = 0, haveMinor = 0] = version.split('.').map(Number);
  if (haveMajor > major || (haveMajor === major && haveMinor >= minor)) return;
  throw new BuildError(`${what} needs Node ${major}.${minor} or later; this is Node ${version}. Install a current Node (22 LTS or later) and try again.`);
}

/**
 * A scratch app holding a copy of node_modules/better-sqlite3 (its sources, not its build) and a
 * package.json naming it, as @electron/rebuild expects. The project's own copy is not touched.
 */
export function prepareRebuildCopy(root, work) {
  const source = path.join(root, 'node_modules', 'better-sqlite3');
  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
  const target = path.join(work, 'node_modules', 'better-sqlite3');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(source, target, {
    recursive: true,
    filter: (file) => {
      const relative = path.relative(source, file);
      return relative !== 'build' && !relative.startsWith(`build${path.sep}`) && relative !== 'node_modules' && !relative.startsWith(`node_modules${path.sep}`);
    },
  });
  fs.writeFileSync(
    path.join(work, 'package.json'),
    JSON.stringify({ name: 'outpost-native-build', version: '0.0.0', private: true, dependencies: { 'better-sqlite3': manifest.version } }, null, 2),
  );
  return target;
}

/**
 * The Electron build of better-sqlite3, made if missing (or when `force`). Needs network the
 * first time: a prebuilt binary from better-sqlite3's releases, else Electron's headers to
 * compile it (then a C++ toolchain too).
 */
export async function ensureNativeBinding({ root, electronVersion, platform = process.platform, arch = process.arch, force = false, log = console.log, rebuild }) {
  const folder = nativeBuildFolder(root, electronVersion, platform, arch);
  const target = path.join(folder, NATIVE_FILE);
  if (!force && fs.existsSync(target)) return target;
  let rebuildModule = rebuild;
  if (!rebuildModule) {
    requireNode(22, 12, "Building better-sqlite3 for Electron (@electron/rebuild)");
    ({ rebuild: rebuildModule } = await import('@electron/rebuild'));
  }
  fs.mkdirSync(path.dirname(folder), { recursive: true });
  const work = fs.mkdtempSync(path.join(path.dirname(folder), '.work-'));
  try {
    const copy = prepareRebuildCopy(root, work);
    log(`building better-sqlite3 for Electron ${electronVersion} (${platform}-${arch}) in ${path.relative(root, work)}…`);
    try {
      await rebuildModule({ buildPath: work, electronVersion, platform, arch, onlyModules: ['better-sqlite3'], force: true, mode: 'sequential' });
    } catch (error) {
      throw new BuildError(
        `could not build better-sqlite3 for Electron ${electronVersion}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n` +
          'This step needs network access (a prebuilt binary from GitHub, or Electron\'s headers and a C++ toolchain to compile).',
      );
    }
    const built = path.join(copy, 'build', 'Release', NATIVE_FILE);
    if (!fs.existsSync(built)) throw new BuildError(`@electron/rebuild finished but ${path.relative(root, built)} is missing`);
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(built, `${target}.tmp`);
    fs.renameSync(`${target}.tmp`, target);
    log(`better-sqlite3 for Electron: ${path.relative(root, target)}`);
    return target;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
