// libFuzzer harness for the EPANET .inp reader (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import EPANETFormat
import Foundation
import FuzzSupport

/// Parses the input as an EPANET `.inp` file. A thrown `EPANETInputError` is a fine outcome;
/// anything else (a trap, another error) is a bug and crashes on purpose so libFuzzer records the
/// input. An accepted model's links all join two defined, different nodes (the reader's own check).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let model: EPANETModel
    do {
        model = try EPANETModel(text: text)
    } catch is EPANETInputError {
        return 0
    } catch {
        fatalError("EPANET reader threw a non-EPANETInputError: \(error)")
    }
    let nodes = Set(model.nodeIDs)
    for link in model.links where !nodes.contains(link.node1) || !nodes.contains(link.node2) || link.node1 == link.node2 {
        fatalError("an accepted model has link \(link.id) between \(link.node1) and \(link.node2)")
    }
    return 0
}

#if FUZZING
@_cdecl("fuzz_epanet_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-epanet", argc, argv, fuzz)
}
#else
@main enum FuzzEPANETReplay {
    static func main() { exit(FuzzDriver.main("fuzz-epanet", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
