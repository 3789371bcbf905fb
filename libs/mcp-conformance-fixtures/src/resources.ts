import type { ExtensionResource } from '@app/mcp-tools';
import { ANY_MEMBER, PNG_BASE64 } from './fixture-kit.js';

const resource = (
  r: Omit<ExtensionResource, 'access' | 'title'> & { title?: string },
): ExtensionResource => ({ title: r.name, access: ANY_MEMBER, ...r });

/** The fixture resources: static text and binary, a watched one, a template. */
export function resources(): ExtensionResource[] {
  return [
    resource({
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A static text resource.',
      mimeType: 'text/plain',
      read: async (uri) => [
        { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
    resource({
      uri: 'test://static-binary',
      name: 'static-binary',
      description: 'A static binary resource (a PNG image).',
      mimeType: 'image/png',
      read: async (uri) => [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }],
    }),
    resource({
      uri: 'test://watched-resource',
      name: 'watched-resource',
      description: 'A text resource (this stateless server offers no subscriptions to it).',
      mimeType: 'text/plain',
      read: async (uri) => [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }],
    }),
    resource({
      uriTemplate: 'test://template/{id}/data',
      name: 'template',
      description: 'A resource template with parameter substitution.',
      mimeType: 'application/json',
      read: async (uri, vars) => [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({
            id: vars.id,
            templateTest: true,
            data: `Data for ID: ${vars.id}`,
          }),
        },
      ],
    }),
  ];
}
