import FamilySyncProtocol
import Hummingbird

// The wire types a handler answers with, written by the request context's `responseEncoder`.
// (FamilySyncProtocol is shared with the SDK and knows nothing of Hummingbird.)
extension AcceptPairingResponse: ResponseEncodable {}
extension AlertBody: ResponseEncodable {}
extension AlertList: ResponseEncodable {}
extension AuditPage: ResponseEncodable {}
extension AuditReadsList: ResponseEncodable {}
extension BudgetStatusResponse: ResponseEncodable {}
extension CommandBody: ResponseEncodable {}
extension CommandList: ResponseEncodable {}
extension CreateFamilyResponse: ResponseEncodable {}
extension CreatePairingResponse: ResponseEncodable {}
extension StartSignInResponse: ResponseEncodable {}
extension ClaimSignInResponse: ResponseEncodable {}
extension CredentialResponse: ResponseEncodable {}
extension DatabaseChangesResponse: ResponseEncodable {}
extension DeviceBody: ResponseEncodable {}
extension DeviceList: ResponseEncodable {}
extension ProbeStatus: ResponseEncodable {}
extension LookupRecordsResponse: ResponseEncodable {}
extension MemberBody: ResponseEncodable {}
extension MemberList: ResponseEncodable {}
extension MemberSummaryList: ResponseEncodable {}
extension ModifyRecordsResponse: ResponseEncodable {}
extension MultiZoneChangesResponse: ResponseEncodable {}
extension PairingBody: ResponseEncodable {}
extension PairingList: ResponseEncodable {}
extension PollResponse: ResponseEncodable {}
extension QueryRecordsResponse: ResponseEncodable {}
extension RecoveryCodeResponse: ResponseEncodable {}
extension ReportBody: ResponseEncodable {}
extension SummaryList: ResponseEncodable {}
extension UsageList: ResponseEncodable {}
extension UsageUploadResponse: ResponseEncodable {}
extension UsageTotalsResponse: ResponseEncodable {}
extension DeviceHealthBody: ResponseEncodable {}
extension TrackingReportBody: ResponseEncodable {}
extension ShieldStateBody: ResponseEncodable {}
extension VerifyParentPINResponse: ResponseEncodable {}
extension ZoneBody: ResponseEncodable {}
extension ZoneChangesResponse: ResponseEncodable {}
extension ZoneList: ResponseEncodable {}
extension RetentionBody: ResponseEncodable {}
