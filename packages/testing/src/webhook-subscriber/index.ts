export { startSubscriber } from './subscriber-server.js';
export type { ReceivedMessage, WebhookSubscriber } from './subscriber-server.js';
