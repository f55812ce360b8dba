export { FakeHintProvider } from './fake-hint-provider.js';
