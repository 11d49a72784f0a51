/**
 * The application menu: the usual menus built from Electron's roles (so shortcuts and labels
 * follow each platform), and developer tools only in development builds.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuOptions {
  readonly platform: NodeJS.Platform;
  /** A packaged (installed) build: no developer tools, no reload that would hide a problem. */
  readonly packaged: boolean;
}

export function applicationMenu({ platform, packaged }: MenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const development: MenuItemConstructorOptions[] = packaged ? [] : [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }];
  return [
    ...(mac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [...development, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ role: 'about', label: 'About Outpost' }] },
  ];
}

/** Every role in a menu template, submenus included (what the tests look at). */
export function menuRoles(template: readonly MenuItemConstructorOptions[]): string[] {
  return template.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...(Array.isArray(item.submenu) ? menuRoles(item.submenu as MenuItemConstructorOptions[]) : []),
  ]);
}
