import Foundation
import Subprocess

/// A pairing payload drawn as a QR code for a terminal by Debian's `qrencode` (package
/// `qrencode`), which a phone's camera can scan from the screen. No QR encoder of our own: where
/// the program is missing, the payload is printed as text only.
enum TerminalQRCode {
    static func draw(_ payload: String) async -> String? {
        guard isInstalled else { return nil }
        let result = try? await Subprocess.run(
            .name("qrencode"), arguments: ["-t", "UTF8", "-m", "2", "-o", "-", payload],
            output: .string(limit: 1 << 20), error: .discarded
        )
        guard let result, result.terminationStatus.isSuccess, !result.standardOutput.isEmpty else { return nil }
        return result.standardOutput
    }

    private static var isInstalled: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/qrencode") }
    }
}
