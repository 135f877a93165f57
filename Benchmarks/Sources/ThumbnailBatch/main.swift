import Foundation
import WebImageCore
import WebImageJPEGCoder

// thumbnail-batch SIDE GAP OUTFOLDER FILE...
// One process, one pass over the files, as `vipsthumbnail` runs over a batch: each JPEG decoded at the
// DCT scale DecodeOptions.thumbnailReducingGap = GAP allows, resized to fit SIDE x SIDE and written as
// JPEG q75 into OUTFOLDER under its own name. It times nothing: scripts/bench/transform-bench-peers.py times
// the whole process, start-up included.

let arguments = CommandLine.arguments
guard arguments.count >= 5, let side = Int(arguments[1]), let gap = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: thumbnail-batch SIDE GAP OUTFOLDER FILE...\n".utf8))
    exit(2)
}
let outFolder = arguments[3]
var decode = DecodeOptions(thumbnailPixelSize: PixelSize(side))
decode.thumbnailReducingGap = gap
let encode = EncodeOptions(quality: 0.75)
let coder = JPEGCoder()
for path in arguments[4...] {
    let image = try coder.decode(try Data(contentsOf: URL(fileURLWithPath: path)), options: decode)
    let jpeg = try coder.encode(image, as: .jpeg, options: encode)
    // Written with stdio: Foundation's Data.write(to:) syncs each file to disk, which vipsthumbnail does not.
    let name = outFolder + "/" + (path as NSString).lastPathComponent
    guard let file = fopen(name, "wb") else { throw CocoaError(.fileWriteUnknown) }
    let written = jpeg.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    guard written == jpeg.count else { throw CocoaError(.fileWriteUnknown) }
}
