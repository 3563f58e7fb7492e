import FamilySyncClient
import SDKFootprintScenario

// The SDK as an app or an extension links it: `FamilySyncClient` alone, URLSession.
await FootprintScenario.run(transport: URLSessionTransport.shared, name: "URLSession")
