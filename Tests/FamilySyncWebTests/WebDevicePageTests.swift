import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// `/app/devices/{id}` (§10, the tracking seed's diagnostics view): a child's light, its last
/// heartbeat, today's gap on a timeline and in a table, its errors, and the text export as a
/// download; reached from the family page; a device that records nothing has no such page.
@Suite struct WebDevicePageTests {
    @Test func aParentReadsADevicesTrackingHealth() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            #expect(try await server.heartbeat(child, memory: 5, errors: [server.extensionError()]).status == .ok)
            // Twenty minutes without a heartbeat, then one: a closed gap.
            server.clock.advance(by: 1200)
            #expect(try await server.heartbeat(child).status == .ok)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let family = try await browser.get("/app/")
            #expect(family.html.contains("href=\"/app/devices/\(child.deviceID.lowercased)\""), "the family page links the device")

            let page = try await browser.get("/app/devices/\(child.deviceID.lowercased)")
            #expect(page.status == 200, "\(page.html)")
            // Reporting, but with an error and a stretch without heartbeats today: amber, not red.
            #expect(page.html.contains("light degraded") && page.html.contains("trouble today") && page.html.contains("5.0 MB"), "\(page.html)")
            #expect(family.html.contains("<span class=\"light degraded\" aria-hidden=\"true\"></span>trouble today"), "\(family.html)")
            #expect(page.html.contains("<svg") && page.html.contains("class=\"gap heartbeat_stale\""), "the gap on the timeline")
            #expect(page.html.contains("data-method=\"heartbeat_stale\"") && page.html.contains("no heartbeat"), "and in the table")
            #expect(page.html.contains("intervalDidStart") && page.html.contains("could not write"))

            let export = try await browser.get("/app/devices/\(child.deviceID.lowercased)/health.txt")
            #expect(export.status == 200 && export.header("content-type") == "text/plain; charset=utf-8")
            #expect(export.header("content-disposition")?.hasPrefix("attachment;") == true)
            #expect(export.html.contains("EXTENSION HEALTH") && export.html.contains("DATA GAPS") && export.html.contains("ERROR LOG"))

            // The parent's own phone records nothing: no health page, said as a page.
            let untracked = try await browser.get("/app/devices/\(parent.deviceID.lowercased)")
            #expect(untracked.status == 409 && untracked.html.contains("does not record usage"))
            #expect(try await browser.get("/app/devices/\(UUID().lowercased)").status == 404)
        }
    }
}
