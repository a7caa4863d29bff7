/// Where the parts of a printed map lie on its page, in points from the top-left corner: the
/// title band across the top, the map frame, the legend column right of it (north arrow on top)
/// and the notes band along the bottom (scale bar, date, CRS, sources, who printed it), all
/// inside the paper's margins.
public struct PrintLayout: Hashable, Sendable {
    public let paper: PrintPaper
    public let title: PixelBox
    /// The map frame; its width and height are whole points (the map view's size).
    public let frame: PixelBox
    public let legend: PixelBox
    public let notes: PixelBox

    static let titleHeight = 30.0, notesHeight = 64.0, gap = 6.0
    /// The legend column's width: ~53 mm on A4, ~60 mm on A3.
    static func legendWidth(_ paper: PrintPaper) -> Double { paper.size == .a4 ? 150 : 170 }

    public init(paper: PrintPaper) {
        self.paper = paper
        let (width, height) = paper.points
        let m = PrintPaper.margin
        let content = PixelBox(x: m, y: m, width: Double(width) - 2 * m, height: Double(height) - 2 * m)
        title = PixelBox(x: content.x, y: content.y, width: content.width, height: Self.titleHeight)
        notes = PixelBox(x: content.x, y: content.maxY - Self.notesHeight, width: content.width, height: Self.notesHeight)
        let top = title.maxY + Self.gap
        let legendWidth = Self.legendWidth(paper)
        let frameWidth = (content.width - legendWidth - Self.gap).rounded(.down)
        let frameHeight = (notes.y - Self.gap - top).rounded(.down)
        frame = PixelBox(x: content.x, y: top, width: frameWidth, height: frameHeight)
        legend = PixelBox(x: content.maxX - legendWidth, y: top, width: legendWidth, height: frameHeight)
    }
}
