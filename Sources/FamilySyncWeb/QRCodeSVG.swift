import Foundation
import Subprocess

/// A QR code as inline SVG, drawn by Debian's `qrencode` (as the CLI draws one for a terminal): no
/// QR encoder of our own. Where the program is missing, nil, and the page shows the code as text.
enum QRCodeSVG {
    static func draw(_ payload: String) async -> String? {
        let result = try? await Subprocess.run(
            .name("qrencode"), arguments: ["-t", "SVG", "--inline", "-m", "2", "-s", "6", "-o", "-", payload],
            output: .string(limit: 1 << 20), error: .discarded
        )
        guard let result, result.terminationStatus.isSuccess, let start = result.standardOutput.range(of: "<svg") else { return nil }
        return String(result.standardOutput[start.lowerBound...])
    }
}
