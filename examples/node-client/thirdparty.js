// The third-party protos a client needs besides Warroom's own, all from proto/third_party/
// (docs/api.md, "Any language"): google.rpc.Status + ErrorInfo for refusals, grpc.health.v1
// and grpc.reflection.v1 clients. Nothing here comes from anywhere but proto/.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');
const { PROTO_ROOT } = require('./client.js');

const THIRD_PARTY = path.join(PROTO_ROOT, 'third_party');

// google/rpc/status.proto + error_details.proto as protobufjs types (imports resolved in
// proto/third_party; google/protobuf/* are protobufjs's bundled well-known types).
function rpcTypes() {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => (target.startsWith('google/protobuf/')
    ? target : path.join(THIRD_PARTY, target));
  root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto'], { keepCase: true });
  return root;
}

let types;

// The refusal's google.rpc.Status (from the grpc-status-details-bin trailer) and the
// ErrorInfo among its details ({ reason, domain, metadata }), or throws when either is missing.
function errorInfo(error) {
  types = types || rpcTypes();
  const bytes = error.metadata && error.metadata.get('grpc-status-details-bin')[0];
  if (!bytes) throw new Error(`${error.code} ${error.details}: no google.rpc.Status details`);
  const status = types.lookupType('google.rpc.Status').decode(bytes);
  const any = status.details.find((d) => d.type_url.endsWith('/google.rpc.ErrorInfo'));
  if (!any) throw new Error(`${error.code} ${error.details}: no ErrorInfo in the details`);
  const info = types.lookupType('google.rpc.ErrorInfo');
  const decoded = info.toObject(info.decode(any.value), { defaults: true, objects: true });
  return { ...decoded, code: status.code, types: status.details.map((d) => d.type_url.split('/').pop()) };
}

// A service of proto/third_party (e.g. 'grpc/health/v1/health.proto', 'grpc.health.v1',
// 'Health') as a grpc-js client class.
function thirdPartyService(file, pkg, service) {
  const definition = protoLoader.loadSync(file, {
    includeDirs: [THIRD_PARTY], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  let node = grpc.loadPackageDefinition(definition);
  for (const part of pkg.split('.')) node = node[part];
  return node[service];
}

// grpc.health.v1.Health/Check of `service` at `address`: the ServingStatus name.
function healthCheck(address, service) {
  const Health = thirdPartyService('grpc/health/v1/health.proto', 'grpc.health.v1', 'Health');
  const client = new Health(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.Check({ service }, { deadline: new Date(Date.now() + 10000) }, (error, answer) => {
      client.close();
      if (error) reject(error); else resolve(answer.status);
    });
  });
}

// One grpc.reflection.v1 ServerReflectionInfo stream: each request answered in order.
function reflect(address, requests) {
  const Reflection = thirdPartyService('grpc/reflection/v1/reflection.proto', 'grpc.reflection.v1',
    'ServerReflection');
  const client = new Reflection(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const answers = [];
    const call = client.ServerReflectionInfo({ deadline: new Date(Date.now() + 10000) });
    call.on('data', (answer) => answers.push(answer));
    call.on('error', (error) => { client.close(); reject(error); });
    call.on('end', () => { client.close(); resolve(answers); });
    for (const request of requests) call.write(request);
    call.end();
  });
}

// A unary call with raw request bytes (no serializer): what a broken client sends.
function rawUnary(client, methodPath, bytes) {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(methodPath, (b) => b, (b) => b, bytes, new grpc.Metadata(),
      { deadline: new Date(Date.now() + 10000) }, (error, answer) => (error ? reject(error) : resolve(answer)));
  });
}

module.exports = { THIRD_PARTY, errorInfo, healthCheck, rawUnary, reflect, thirdPartyService };
