import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/members…` and `POST /v1/devices/{id}/member` (PROTOCOL §8).
package struct MemberController {
    let members: PostgresMemberStore

    package init(members: PostgresMemberStore) {
        self.members = members
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("members", use: list)
            .post("members", use: create)
            .patch("members/:id", use: rename)
            .delete("members/:id", use: delete)
            .post("devices/:id/member", use: moveDevice)
            .get("members/:id/summaries", use: summaries)
            .get("members/:id/report", use: report)
    }

    /// `GET /v1/members`: a parent sees every member; another device its own member.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> MemberList {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .listMembers)
        if caller.role == .parent {
            return MemberList(members: try await members.list(familyID: caller.familyID).map(MemberBody.init))
        }
        guard let own = caller.memberID else { return MemberList(members: []) }
        return MemberList(members: try await members.list(familyID: caller.familyID, onlyMember: own).map(MemberBody.init))
    }

    /// `POST /v1/members`: a person with no device yet (a pairing can name it later).
    @Sendable func create(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<MemberBody> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageMembers)
        let body = try await request.decode(as: CreateMemberRequest.self, context: context)
        let member = try await members.create(familyID: caller.familyID, name: try Validation.name(body.name, field: "name"), role: body.role, as: context.writer)
        return EditedResponse(status: .created, response: MemberBody(member))
    }

    /// `PATCH /v1/members/{id}`: a new name.
    @Sendable func rename(_ request: Request, context: FamilySyncRequestContext) async throws -> MemberBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageMembers)
        let memberID = try context.pathID()
        let body = try await request.decode(as: UpdateMemberRequest.self, context: context)
        return MemberBody(try await members.rename(familyID: caller.familyID, memberID: memberID, name: try Validation.name(body.name, field: "name"), as: context.writer))
    }

    /// `DELETE /v1/members/{id}`: its devices revoked, its zone deleted.
    @Sendable func delete(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageMembers)
        try await members.delete(familyID: caller.familyID, memberID: try context.pathID(), by: caller, as: context.writer)
        return Response(status: .noContent)
    }

    /// `POST /v1/devices/{id}/member`: the device now belongs to another member of its role.
    @Sendable func moveDevice(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageMembers)
        let deviceID = try context.pathID()
        let body = try await request.decode(as: MoveDeviceRequest.self, context: context)
        return DeviceBody(try await members.move(familyID: caller.familyID, deviceID: deviceID, to: body.memberId, as: context.writer))
    }

    /// `GET /v1/members/{id}/summaries?from=&to=`: the member's days across their devices.
    @Sendable func summaries(_ request: Request, context: FamilySyncRequestContext) async throws -> MemberSummaryList {
        let (caller, memberID) = try context.memberUsageReader()
        let dates = try request.dateRange()
        let days = try await members.days(familyID: caller.familyID, memberID: memberID, dates: dates)
        return MemberSummaryList(summaries: days.map(MemberDayBody.init))
    }

    /// `GET /v1/members/{id}/report?from=&to=&granularity=`: §7.4's report over the member, with
    /// each period's platforms; JSON or CSV.
    @Sendable func report(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let (caller, memberID) = try context.memberUsageReader()
        let dates = try request.dateRange()
        let granularity = try request.granularity()
        let days = try await members.days(familyID: caller.familyID, memberID: memberID, dates: dates)
        let report = UsageReport(memberDays: days, granularity: granularity)
        if request.prefers("text/csv") { return .csv(report.memberCSV) }
        return try ReportBody(report, withPlatforms: true).response(from: request, context: context)
    }
}
