import Testing
import WebImageCore
import WebImageTransformers

/// imgproxy's geometry: the result sizes of its own processing tests, for a 200x100 source (their
/// `test2.jpg` and `geometry.png` are both 200x100). Each case names the imgproxy test table it comes from
/// (imgproxy/imgproxy, `processing/processing_test.go` at v3.31.4, and `processing/*_test.go` of v4, whose
/// geometry is v3's); the options are imgproxy's `ProcessingOptions` fields of the case written as text.
@Suite struct ImgproxyGeometryTests {
    /// A 200x100 opaque image whose pixels differ, so a wrong crop or offset would show.
    static let source = ProcessingTransformerTests.image(width: 200, height: 100)

    /// (imgproxy test, options, expected width, expected height).
    static let sizeCases: [(source: String, options: String, width: Int, height: Int)] = [
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:50:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:50:20", 40, 20),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:20:50", 20, 10),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:300:300", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:300:50", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:100:300", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:0:50", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:50:0", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:0:200", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFit", "rs:fit:300:0", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:50:50/el:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:50:20/el:1", 40, 20),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:20:50/el:1", 20, 10),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:300:300/el:1", 300, 150),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:300:125/el:1", 250, 125),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:250:300/el:1", 250, 125),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:0:50/el:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:50:0/el:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:0:200/el:1", 400, 200),
        ("processing_test.go (v3.31.4) TestResizeToFitEnlarge", "rs:fit:300:0/el:1", 300, 150),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:50:50/ex:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:50:20/ex:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:20:50/ex:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:300:300/ex:1", 300, 300),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:300:125/ex:1", 300, 125),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:250:300/ex:1", 250, 300),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:0:50/ex:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:50:0/ex:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:0:200/ex:1", 200, 200),
        ("processing_test.go (v3.31.4) TestResizeToFitExtend", "rs:fit:300:0/ex:1", 300, 100),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:50:50/exar:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:50:20/exar:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:20:50/exar:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:300:300/exar:1", 200, 200),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:300:125/exar:1", 240, 100),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:250:500/exar:1", 200, 400),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:0:50/exar:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:50:0/exar:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:0:200/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFitExtendAR", "rs:fit:300:0/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:50:50", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:50:20", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:20:50", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:300:300", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:300:50", 200, 50),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:100:300", 100, 100),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:0:50", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:50:0", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:0:200", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFill", "rs:fill:300:0", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:50:50/el:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:50:20/el:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:20:50/el:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:300:300/el:1", 300, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:300:125/el:1", 300, 125),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:250:300/el:1", 250, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:0:50/el:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:50:0/el:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:0:200/el:1", 400, 200),
        ("processing_test.go (v3.31.4) TestResizeToFillEnlarge", "rs:fill:300:0/el:1", 300, 150),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:50:50/ex:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:50:20/ex:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:20:50/ex:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:300:300/ex:1", 300, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:300:125/ex:1", 300, 125),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:250:300/ex:1", 250, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:300:50/ex:1", 300, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:100:300/ex:1", 100, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:0:50/ex:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:50:0/ex:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:0:200/ex:1", 200, 200),
        ("processing_test.go (v3.31.4) TestResizeToFillExtend", "rs:fill:300:0/ex:1", 300, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:50:50/exar:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:50:20/exar:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:20:50/exar:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:300:300/exar:1", 200, 200),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:300:125/exar:1", 240, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:250:500/exar:1", 200, 400),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:300:50/exar:1", 300, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:100:300/exar:1", 100, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:0:50/exar:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:50:0/exar:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:0:200/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillExtendAR", "rs:fill:300:0/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:50:50", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:50:20", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:20:50", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:300:300", 100, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:300:125", 200, 83),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:250:300", 83, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:0:50", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:50:0", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:0:200", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDown", "rs:fill-down:300:0", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:50:50/el:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:50:20/el:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:20:50/el:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:300:300/el:1", 300, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:300:125/el:1", 300, 125),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:250:300/el:1", 250, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:0:50/el:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:50:0/el:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:0:200/el:1", 400, 200),
        ("processing_test.go (v3.31.4) TestResizeToFillDownEnlarge", "rs:fill-down:300:0/el:1", 300, 150),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:50:50/ex:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:50:20/ex:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:20:50/ex:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:300:300/ex:1", 300, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:300:125/ex:1", 300, 125),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:250:300/ex:1", 250, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:300:50/ex:1", 300, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:100:300/ex:1", 100, 300),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:0:50/ex:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:50:0/ex:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:0:200/ex:1", 200, 200),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtend", "rs:fill-down:300:0/ex:1", 300, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:50:50/exar:1", 50, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:50:20/exar:1", 50, 20),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:20:50/exar:1", 20, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:300:300/exar:1", 100, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:300:125/exar:1", 200, 83),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:250:300/exar:1", 83, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:0:50/exar:1", 100, 50),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:50:0/exar:1", 50, 25),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:0:200/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResizeToFillDownExtendAR", "rs:fill-down:300:0/exar:1", 200, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:100:100/mrd:1000", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:100:100/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:0:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:0:100/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:150:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:1000:1000/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:1000:1000/el:1/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:1000:2000/ex:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:1000:2000/exar:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:100:150/rot:90/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:0:0/rot:90/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fit:100:100/pd:100:200:300:400/mrd:200", 200, 129),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:100:100/mrd:1000", 100, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:100:100/mrd:50", 50, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:1000:50/mrd:50", 50, 13),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:100:1000/mrd:50", 50, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:0:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:0:100/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:150:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:1000:1000/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:1000:1000/el:1/mrd:100", 100, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:1000:2000/ex:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:1000:2000/exar:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:100:150/rot:90/mrd:100", 67, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:0:0/rot:90/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill:100:100/pd:100:200:300:400/mrd:200", 200, 144),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:100:100/mrd:1000", 100, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:100:100/mrd:50", 50, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:50/mrd:50", 50, 3),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:100:1000/mrd:50", 5, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:0:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:0:100/mrd:100", 100, 50),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:150:0/mrd:50", 50, 25),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:1000/mrd:100", 100, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:1000/el:1/mrd:100", 100, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:2000/ex:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:2000/exar:1/mrd:100", 50, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:1500/rot:90/mrd:100", 67, 100),
        ("processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:0:0/rot:90/mrd:100", 50, 100),
        (
            "processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:100:100/pd:100:200:300:400/mrd:200", 200,
            144
        ),
        (
            "processing_test.go (v3.31.4) TestResultSizeLimit", "rs:fill-down:1000:1000/pd:100:200:300:400/mrd:200",
            200, 144
        ),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:ce", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:so", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:ea", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:we", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:noea", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:soea", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:sowe", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:nowe", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:5", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:5/dpr:0.5", 250, 250),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:5/dpr:2", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:ea:5:0", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:ea:5:0/dpr:0.5", 250, 250),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:ea:5:0/dpr:2", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:0.1", 500, 500),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:0.1/dpr:0.5", 250, 250),
        ("extend_test.go (v4) TestExtend", "w:500/h:500/ex:1:no:0:0.1/dpr:2", 500, 500),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:ce", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:so", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:ea", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:we", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:noea", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:soea", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:sowe", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:nowe", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:5", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:5/dpr:0.5", 150, 300),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:5/dpr:2", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:ea:5:0", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:ea:5:0/dpr:0.5", 150, 300),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:ea:5:0/dpr:2", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:0.1", 200, 400),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:0.1/dpr:0.5", 150, 300),
        ("extend_test.go (v4) TestExtendAspectRatio", "w:300/h:600/exar:1:no:0:0.1/dpr:2", 200, 400),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:ce", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:so", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:noea", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:soea", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:sowe", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:nowe", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:ce", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:ea", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:we", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:noea", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:soea", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:sowe", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:nowe", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:ce/dpr:2", 200, 52),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:5", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:5/dpr:0.5", 50, 13),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:5/dpr:2", 200, 52),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:no:5:0", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:no:5:0/dpr:0.5", 13, 50),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:26:100/g:no:5:0/dpr:2", 26, 100),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:0.1", 100, 26),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:0.1/dpr:0.5", 50, 13),
        ("crop_test.go (v4) TestResizeFill", "rs:fill:100:26/g:no:0:0.1/dpr:2", 200, 52),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:no", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:so", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ea", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:we", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:noea", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:nowe", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:soea", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:sowe", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:10:0", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:0:10", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:10:10", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:0.1:0", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:0:0.1", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:0.1:0.1", 50, 50),
        ("crop_test.go (v4) TestCrop", "c:50:50:ce:10:10/dpr:0.5", 25, 25),
        ("padding_test.go (v4) TestPadding", "dpr:0.5/pd:20:30:40:10/bg:f00/el:1", 120, 80),
        ("padding_test.go (v4) TestPadding", "dpr:1/pd:20:30:40:10/bg:f00/el:1", 240, 160),
        ("padding_test.go (v4) TestPadding", "dpr:2/pd:20:30:40:10/bg:f00/el:1", 480, 320),
    ]

    @Test(arguments: sizeCases)
    func resultSizesMatchImgproxysTables(_ test: String, _ text: String, _ width: Int, _ height: Int) throws {
        let options = try ProcessingOptions(parsing: text)
        let built = try options.transformer(watermarkImage: nil)
        let output = try #require(built as? ProcessingTransformer, "\(test): \(text)").transformed(Self.source)
        #expect(
            output.width == width && output.height == height,
            "\(test): \(text) gave \(output.width)x\(output.height), imgproxy \(width)x\(height)")
    }
}

/// Sizes and positions worked out by hand from imgproxy's documented geometry (docs.imgproxy.net,
/// "Processing URL": min-width, zoom, dpr, rs:force, gravity and extend offsets) on a 200x100 source
/// whose pixel (x, y) has red x and green y, so the output's corner names the source pixel it came from.
@Suite struct ImgproxyGeometryDocumentedTests {
    static let source: Image = {
        var bytes: [UInt8] = []
        for y in 0..<100 { for x in 0..<200 { bytes += [UInt8(x), UInt8(y), 0, 255] } }
        return Image(pixels: PixelBuffer(width: 200, height: 100, layout: .rgba8, bytes: bytes))
    }()

    static func output(_ text: String) throws -> Image {
        guard let built = try ProcessingOptions(parsing: text).transformer(watermarkImage: nil) else { return source }
        return try #require(built as? ProcessingTransformer, "\(text)").transformed(source)
    }

    static let sizeCases: [(options: String, width: Int, height: Int)] = [
        // min-width / min-height: the result is at least that large, even past the source without el, and
        // then cut to the requested width ("cropped according to width", as the docs warn).
        ("rs:fit:50:50/mw:100", 50, 50), ("w:50/mw:100", 50, 50), ("mw:100", 200, 100), ("mw:400", 400, 200),
        ("h:20/mh:50", 100, 20), ("rs:fit:20:20/mh:40", 20, 20),
        // zoom multiplies the scale after the resize type, and the target; no enlarging without el.
        ("z:2", 200, 100), ("z:2/el:1", 400, 200), ("rs:fit:50:50/z:2", 100, 50), ("z:0.5", 100, 50),
        ("z:1:0.5", 200, 50), ("rs:fill:50:50/z:0.5", 25, 25),
        // rs:force with a 0 side keeps the source's side.
        ("rs:force:100:0", 100, 100), ("rs:force:0:50", 200, 50), ("rs:force:50:20", 50, 20),
        // dpr with no size: capped by the source unless enlarging.
        ("dpr:2", 200, 100), ("dpr:2/el:1", 400, 200), ("dpr:0.5", 100, 50),
        // dpr with a size: capped where it would enlarge.
        ("rs:fit:150:150/dpr:2", 200, 100), ("rs:fit:50:50/dpr:2", 100, 50), ("rs:fit:50:50/dpr:3", 150, 75),
        // extend to an aspect ratio needs both sides; the image's larger side is kept.
        ("rs:fit:100:0/exar:1", 100, 50), ("rs:fit:400:400/exar:1", 200, 200), ("rs:fill:100:100/exar:1", 100, 100),
        // pixelate, metadata and the server's options leave the size alone.
        ("pix:16", 200, 100), ("mrd:100", 100, 50), ("mrd:0", 200, 100),
    ]

    @Test(arguments: sizeCases)
    func sizesFollowImgproxysDocumentedGeometry(_ text: String, _ width: Int, _ height: Int) throws {
        let output = try Self.output(text)
        #expect(output.width == width && output.height == height, "\(text) gave \(output.width)x\(output.height)")
    }

    /// (options, the source pixel at the output's top-left corner). Centres round half to even: (200 - 50 + 1) / 2
    /// is 76.
    static let cornerCases: [(options: String, x: Int, y: Int)] = [
        ("c:50:50", 76, 26), ("c:50:50:ce:10:10", 86, 36), ("c:50:50:ea:5:0", 145, 26), ("c:50:50:ce:0.1:0", 96, 26),
        ("c:50:50:fp:0.25:0.5", 25, 25), ("c:50:50:so:0:10", 76, 40), ("c:50:50:nowe:-10:0", 0, 0),
        ("c:50:50:no:0:-10", 76, 0), ("g:soea:3:4/c:50:50", 147, 46), ("c:50:50:we/g:ea", 0, 26),
        ("rs:fill:100:100/g:ea:10:0", 90, 0), ("rs:fill:100:100/g:we:0.1:0", 20, 0),
        // Gravity offsets in points are multiplied by the effective dpr (2 here: 50 points are 100 pixels).
        ("rs:fill:50:50/g:ea:10:0/dpr:2", 80, 0),
        // The first crop is in source pixels, its offsets too, whatever the dpr (capped at 1 here).
        ("c:50:50:ce:10:0/dpr:2", 86, 26),
    ]

    @Test(arguments: cornerCases)
    func gravityOffsetsPlaceTheCropAsImgproxy(_ text: String, _ x: Int, _ y: Int) throws {
        let corner = try Self.output(text).pixels.rgba(x: 0, y: 0)
        #expect(Int(corner.r) == x && Int(corner.g) == y, "\(text) starts at (\(corner.r), \(corner.g))")
    }

    @Test func extendOffsetsPlaceTheImageOnTheCanvas() throws {
        // North with a y offset of 5: centred across (50 left), 5 down.
        let north = try Self.output("w:300/h:200/ex:1:no:0:5").pixels
        #expect(north.width == 300 && north.height == 200)
        #expect(north.rgba(x: 50, y: 5).a == 255 && north.rgba(x: 50, y: 5).r == 0 && north.rgba(x: 50, y: 5).g == 0)
        #expect(north.rgba(x: 49, y: 5).a == 0 && north.rgba(x: 50, y: 4).a == 0)
        // South-east with offsets of 10: 10 pixels from the right and bottom edges.
        let corner = try Self.output("w:300/h:200/ex:1:soea:10:10").pixels
        #expect(corner.rgba(x: 90, y: 90).a == 255 && corner.rgba(x: 89, y: 90).a == 0)
        #expect(corner.rgba(x: 289, y: 189).r == 199 && corner.rgba(x: 290, y: 189).a == 0)
        // Relative offsets are fractions of the canvas: 0.1 of 200 is 20.
        let relative = try Self.output("w:300/h:200/ex:1:no:0:0.1").pixels
        #expect(relative.rgba(x: 50, y: 20).a == 255 && relative.rgba(x: 50, y: 19).a == 0)
        // Extend to the aspect ratio with a gravity: 200x100 to 1:1 is 200x200, the image at the bottom.
        let aspect = try Self.output("w:100/h:100/exar:1:so").pixels
        #expect(aspect.width == 100 && aspect.height == 100)
        let tall = try Self.output("rs:fit:400:400/exar:1:so").pixels
        #expect(
            tall.width == 200 && tall.height == 200 && tall.rgba(x: 0, y: 100).a == 255 && tall.rgba(x: 0, y: 99).a == 0
        )
    }

    @Test func paddingUsesTheEffectiveDpr() throws {
        // dpr 2 on a 50x50 box is not capped (the source is 4 times larger): padding 5 is 10 each side.
        let padded = try Self.output("rs:fit:50:50/pd:5/dpr:2")
        #expect(padded.width == 120 && padded.height == 70)
        // dpr 2 on a box the source fits: capped at 1, padding stays 5.
        let capped = try Self.output("rs:fit:400:400/pd:5/dpr:2")
        #expect(capped.width == 210 && capped.height == 110)
    }
}

/// `pixelate`: blocks from the top-left corner filled with their average, edge blocks averaged as if the
/// edge pixels were repeated (libvips' copy-extended embed before its shrink, which imgproxy uses).
@Suite struct PixelateTests {
    @Test func blocksTakeTheirAverage() throws {
        let gray: [UInt8] = [0, 100, 200, 40, 40, 40]  // 3x2
        let image = Image(pixels: PixelBuffer(width: 3, height: 2, layout: .gray8, bytes: gray))
        let output = try PixelateTransformer(blockSize: 2).transformed(image).pixels
        // Block 0..1: (0 + 100 + 40 + 40) / 4 = 45. Block 2 is cut: its column counts twice, (200 + 40) / 2 = 120.
        #expect(output.bytes == [45, 45, 120, 45, 45, 120])
    }

    @Test func transparentPixelsDoNotDarkenTheBlock() throws {
        let rgba: [UInt8] = [255, 0, 0, 255, 0, 0, 0, 0]  // red, transparent black
        let image = Image(pixels: PixelBuffer(width: 2, height: 1, layout: .rgba8, bytes: rgba))
        let output = try PixelateTransformer(blockSize: 2).transformed(image).pixels
        #expect(output.rgba(x: 0, y: 0) == output.rgba(x: 1, y: 0))
        #expect(output.rgba(x: 0, y: 0).r == 255 && output.rgba(x: 0, y: 0).a == 128)
    }

    @Test func theOptionBuildsTheStepAfterSharpen() throws {
        let built = try ProcessingOptions(parsing: "pix:4/sh:1").transformer(watermarkImage: nil)
        let keys = try #require(built as? ProcessingTransformer).steps.map(\.transformerKey)
        #expect(
            keys == [
                try SharpenTransformer(sigma: 1).transformerKey, try PixelateTransformer(blockSize: 4).transformerKey,
            ])
        #expect(throws: ImageError.self) { try PixelateTransformer(blockSize: 0) }
    }
}

/// A fill's result crop is resampled in one pass over the region it keeps: the same pixels as scaling the
/// whole frame, then cropping.
@Suite struct ProcessingGeometryOnePassTests {
    @Test func aFillsRegionResampleEqualsScalingThenCropping() throws {
        let source = ProcessingTransformerTests.image(width: 200, height: 100)
        let built = try ProcessingOptions(parsing: "rs:fill:50:50/g:ea:10:0").transformer(watermarkImage: nil)
        let output = try #require(built as? ProcessingTransformer).transformed(source).pixels
        // 200x100 scaled by 1/2 is 100x50; east with a 10-pixel offset keeps x 40..<90.
        let scaled = ImageResampler.resample(source.pixels, width: 100, height: 50, filter: .lanczos3)
        #expect(output == (try CropTransformer(x: 40, y: 0, width: 50, height: 50).transformFrame(scaled)))
    }
}
