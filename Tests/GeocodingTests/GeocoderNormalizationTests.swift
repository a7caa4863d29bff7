@testable import Geocoding
import Testing
@testable import CityModel

@Suite("Geocoder text normalisation")
struct GeocoderNormalizationTests {
    @Test("the empty string stays empty")
    func empty() {
        #expect(AddressText.normalized("") == "")
        let q = AddressQuery("")
        #expect(q.head.isEmpty && q.doorNumber == nil && !q.hasBuildingParts)
    }

    @Test("full-width digits and letters become ASCII, Latin letters upper case")
    func fullWidth() {
        #expect(AddressText.normalized("１２号") == "12号")
        #expect(AddressText.normalized("ａ座") == "A座")
    }

    @Test("white space and punctuation are dropped; a dash between digits is kept")
    func punctuation() {
        #expect(AddressText.normalized(" 沿江大道，12号　（3栋）") == "沿江大道12号3栋")
        #expect(AddressText.normalized("3-1-502") == "3-1-502")
        #expect(AddressText.normalized("路-12号") == "路12号")
    }

    @Test("Chinese numerals become digits: positional with 十/百, digit by digit without")
    func chineseNumerals() {
        #expect(AddressText.normalized("三十二号") == "32号")
        #expect(AddressText.normalized("十二栋") == "12栋")
        #expect(AddressText.normalized("二十层") == "20层")
        #expect(AddressText.normalized("一百零五室") == "105室")
        #expect(AddressText.normalized("五零二室") == "502室")
        #expect(AddressText.normalized("十室") == "10室")
    }

    @Test("栋, 幢, 号楼, 座 and # after a number are one word")
    func buildingWords() {
        for text in ["3栋", "3幢", "3号楼", "3座", "三号楼", "3#"] { #expect(AddressText.normalized(text) == "3栋", "\(text)") }
    }

    @Test("门 is 单元, 户 and 房 are 室, 楼 and F are 层 after a number")
    func unitRoomFloorWords() {
        #expect(AddressText.normalized("2门") == "2单元")
        #expect(AddressText.normalized("502户") == "502室")
        #expect(AddressText.normalized("502房") == "502室")
        #expect(AddressText.normalized("5楼") == "5层")
        #expect(AddressText.normalized("5f") == "5层")
        // Not after a number: names keep their words.
        #expect(AddressText.normalized("凤凰门") == "凤凰门")
    }

    @Test("a query splits into name text, door number and 栋/单元/层/室")
    func querySplit() {
        let q = AddressQuery("邾城街道沿江大道12号3栋2单元5层502室")
        #expect(String(String.UnicodeScalarView(q.head)) == "邾城街道沿江大道")
        #expect(q.doorNumber == 12 && q.building == 3 && q.unit == 2 && q.floor == 5 && q.room == 502)
    }

    @Test("号 after a building is a room; bare numbers fill 栋-单元-室")
    func numberRoles() {
        let a = AddressQuery("双柳小区3栋502号")
        #expect(a.doorNumber == nil && a.building == 3 && a.room == 502)
        let b = AddressQuery("沿江大道2号3-1-502")
        #expect(b.doorNumber == 2 && b.building == 3 && b.unit == 1 && b.room == 502)
        let c = AddressQuery("沿江大道2号3栋1单元502")
        #expect(c.room == 502)
    }

    @Test("a Latin-script address names its door number after the street or before it, without 号; Chinese text is read as before")
    func latinDoorNumbers() {
        for text in ["Korkeavuorenkatu 26", "26 Korkeavuorenkatu", "korkeavuorenkatu 26"] {
            let q = AddressQuery(text)
            #expect(String(String.UnicodeScalarView(q.head)) == "KORKEAVUORENKATU" && q.doorNumber == 26 && !q.hasBuildingParts, "\(text)")
        }
        let named = AddressQuery("Main Street 3 B")
        #expect(named.doorNumber == nil, "a letter after the number: not read as a door number")
        let chinese = AddressQuery("沿江大道12")
        #expect(chinese.doorNumber == nil && chinese.room == 12)
    }

    @Test("digits inside a name stay in the name")
    func digitsInNames() {
        let q = AddressQuery("邾城三路14号")
        #expect(String(String.UnicodeScalarView(q.head)) == "邾城3路")
        #expect(q.doorNumber == 14)
    }

    @Test("one-edit matching: substitution, deletion, insertion; two edits do not match")
    func oneEdit() {
        func s(_ t: String) -> ArraySlice<Unicode.Scalar> { Array(t.unicodeScalars)[...] }
        #expect(NameLexicon<Int32>.withinOneEdit(s("双柳小区"), s("双柳小去")))
        #expect(NameLexicon<Int32>.withinOneEdit(s("双柳小区"), s("双小区")))
        #expect(NameLexicon<Int32>.withinOneEdit(s("双柳小区"), s("双柳柳小区")))
        #expect(!NameLexicon<Int32>.withinOneEdit(s("双柳小区"), s("双甲小乙")))
        var lexicon = NameLexicon<Int32>()
        lexicon.add(Array("双柳小区".unicodeScalars), 7)
        #expect(lexicon.fuzzyMatches(s("双柳小去")).map(\.values) == [[7]])
        #expect(lexicon.fuzzyMatches(s("双小区")).map(\.values) == [[7]])
        #expect(lexicon.fuzzyMatches(s("双柳柳小区")).map(\.values) == [[7]])
        #expect(lexicon.fuzzyMatches(s("双甲小乙")).isEmpty)
    }
}
