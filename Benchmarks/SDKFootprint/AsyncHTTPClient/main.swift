import FamilySyncClientNIO
import SDKFootprintScenario

// The SDK with `FamilySyncClientNIO`: AsyncHTTPClient over SwiftNIO.
await FootprintScenario.run(transport: AsyncHTTPClientTransport.shared, name: "AsyncHTTPClient")
