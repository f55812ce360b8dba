export { FakeNodeSink } from './fake-node-sink.js';
