@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// A drainage run never drops SWMM input silently: each item the engine does not simulate is
/// refused naming its section and the item (`SWMMModel.checkSimulated()`), and what SWMM itself
/// lets a model switch off runs with the switch.
@Suite("SWMM input the engine does not simulate is refused, naming the item")
struct SWMMRefusalTests {
    /// One junction draining through one conduit to a free outfall, one hour of DYNWAVE routing.
    static func model(options: String = "", _ extra: String = "") -> String {
        """
        [OPTIONS]
        FLOW_UNITS CMS
        FLOW_ROUTING DYNWAVE
        START_DATE 01/01/2020
        START_TIME 00:00:00
        END_DATE 01/01/2020
        END_TIME 01:00:00
        \(options)
        [JUNCTIONS]
        J1 10 2
        [OUTFALLS]
        O1 9 FREE
        [CONDUITS]
        C1 J1 O1 100 0.013
        [XSECTIONS]
        C1 CIRCULAR 0.5
        \(extra)
        """
    }

    static let subcatchment = """
        [RAINGAGES]
        RG1 INTENSITY 0:05 1 TIMESERIES R1
        [TIMESERIES]
        R1 0 10
        R1 1 0
        [SUBAREAS]
        S1 0.01 0.1 0.05 0.05 25 OUTLET
        """

    /// A rain gage and a unit hydrograph group on it that SWMM accepts (lines of [HYDROGRAPHS] may follow).
    static let hydrograph = """
        [RAINGAGES]
        RG1 INTENSITY 0:05 1 TIMESERIES R1
        [TIMESERIES]
        R1 0 10
        R1 1 0
        [HYDROGRAPHS]
        UH1 RG1
        UH1 ALL SHORT 0.1 0.5 2

        """

    /// An aquifer SWMM accepts (bottom 0, water table 8 m, below junction J1's invert of 10 m).
    static let aquifer = "[AQUIFERS]\nAQ1 0.5 0.15 0.3 5 10 15 0.35 1 0.002 0 8 0.3\n"

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var options = ""
        var extra = ""
        var section: String
        /// Words the message must contain: the item's name and the reason.
        var words: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "an unknown option", options: "FOO_BAR 1", section: "OPTIONS", words: ["FOO_BAR", "not a SWMM 5.2 option"]),
        Case(name: "an unknown flow unit", options: "FLOW_UNITS XYZ", section: "OPTIONS", words: ["FLOW_UNITS", "XYZ", "expected one of"]),
        // SLOT is simulated (SWMMSlotParityTests); a method SWMM does not know is its ERROR 205.
        Case(name: "an unknown SURCHARGE_METHOD", options: "SURCHARGE_METHOD PRESSURE", section: "OPTIONS",
             words: ["SURCHARGE_METHOD", "PRESSURE", "expected one of EXTRAN, SLOT"]),
        Case(name: "SKIP_STEADY_STATE YES", options: "SKIP_STEADY_STATE YES", section: "OPTIONS", words: ["SKIP_STEADY_STATE", "steady-state"]),
        Case(name: "IGNORE_ROUTING YES", options: "IGNORE_ROUTING YES", section: "OPTIONS", words: ["IGNORE_ROUTING", "without flow routing"]),
        Case(name: "a late reporting start", options: "REPORT_START_TIME 00:30:00", section: "OPTIONS", words: ["REPORT_START", "reporting period"]),
        Case(name: "a step that is not a number", options: "VARIABLE_STEP abc", section: "OPTIONS", words: ["VARIABLE_STEP", "abc", "not a number"]),
        Case(name: "a date that is not a date", options: "END_DATE 13/45/2020", section: "OPTIONS", words: ["END_DATE", "13/45/2020"]),
        Case(name: "air temperature", extra: "[TEMPERATURE]\nTIMESERIES T1", section: "TEMPERATURE", words: ["TIMESERIES", "not simulated"]),
        Case(name: "an adjustment SWMM does not read", extra: "[ADJUSTMENTS]\nSNOWFALL 1 1 1 1 1 1 1 1 1 1 1 1.1", section: "ADJUSTMENTS",
             words: ["SNOWFALL", "ERROR 205"]),
        Case(name: "monthly adjustments short of 12 values", extra: "[ADJUSTMENTS]\nRAINFALL 1 1 1", section: "ADJUSTMENTS", words: ["RAINFALL", "12 monthly values"]),
        Case(name: "an adjustment of a subcatchment not defined", extra: "[PATTERNS]\nP1 MONTHLY 1 1 1 1 1 1 1 1 1 1 1 1\n[ADJUSTMENTS]\nN-PERV S9 P1",
             section: "ADJUSTMENTS", words: ["S9", "ERROR 209"]),
        Case(name: "LID usage of an undefined control", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n[LID_USAGE]\nS1 GreenRoof 1 100 0 0 0 0",
             section: "LID_USAGE", words: ["S1", "GreenRoof", "not defined"]),
        Case(name: "an LID control without its soil layer", extra: "[LID_CONTROLS]\nGR1 BC", section: "LID_CONTROLS", words: ["GR1", "SOIL", "ERROR 184"]),
        Case(name: "an LID underdrain flow curve", extra: "[LID_CONTROLS]\nB1 BC\nB1 SOIL 300 0.5 0.2 0.1 10 10 50\nB1 DRAIN 1 0.5 0 0 0 0 DC1",
             section: "LID_CONTROLS", words: ["B1", "DC1", "not simulated"]),
        Case(name: "LID units larger than their subcatchment", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[LID_CONTROLS]\nB1 RB\nB1 STORAGE 1000 0.75 0 0\n[LID_USAGE]\nS1 B1 3 5000 0 0 0 0", section: "LID_USAGE", words: ["S1", "ERROR 187"]),
        Case(name: "groundwater on an aquifer not defined", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0 0 0 0 *", section: "GROUNDWATER", words: ["S1", "AQ1", "ERROR 209"]),
        Case(name: "groundwater with a surface-water term", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n" + aquifer
             + "[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0.005 1 0 0 *", section: "GROUNDWATER", words: ["S1", "A2", "not simulated"]),
        Case(name: "groundwater with the interaction term and the node's level", extra: subcatchment
             + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n" + aquifer + "[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0 0 0.001 0 *",
             section: "GROUNDWATER", words: ["S1", "A3", "fixed surface-water depth"]),
        Case(name: "groundwater with too few items", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n" + aquifer
             + "[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0 0 0 0", section: "GROUNDWATER", words: ["S1", "ERROR 203"]),
        Case(name: "ground below the water table", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n" + aquifer
             + "[GROUNDWATER]\nS1 AQ1 J1 7 0.01 1 0 0 0 0 *", section: "GROUNDWATER", words: ["S1", "ERROR 110"]),
        Case(name: "an aquifer SWMM rejects", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[AQUIFERS]\nAQ1 0.3 0.15 0.35 5 10 15 0.35 1 0.002 0 8 0.3\n[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0 0 0 0 *",
             section: "AQUIFERS", words: ["AQ1", "ERROR 109"]),
        Case(name: "an aquifer with an evaporation pattern", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[AQUIFERS]\nAQ1 0.5 0.15 0.3 5 10 15 0.35 1 0.002 0 8 0.3 UP1\n[GROUNDWATER]\nS1 AQ1 J1 12 0.01 1 0 0 0 0 *",
             section: "AQUIFERS", words: ["AQ1", "UP1", "not simulated"]),
        Case(name: "a groundwater flow equation", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[GWF]\nS1 LATERAL 0.001*Hgw", section: "GWF", words: ["S1", "LATERAL", "not simulated"]),
        Case(name: "RDII from a unit hydrograph not defined", extra: hydrograph + "[RDII]\nJ1 UH9 10", section: "RDII", words: ["J1", "UH9", "ERROR 209"]),
        Case(name: "RDII at a node not defined", extra: hydrograph + "[RDII]\nJX UH1 10", section: "RDII", words: ["JX", "ERROR 209"]),
        Case(name: "RDII over a negative sewershed area", extra: hydrograph + "[RDII]\nJ1 UH1 -5", section: "RDII", words: ["J1", "-5", "ERROR 211"]),
        Case(name: "RDII without its area", extra: hydrograph + "[RDII]\nJ1 UH1", section: "RDII", words: ["J1", "ERROR 203"]),
        Case(name: "unit hydrograph response ratios adding up to more than 1",
             extra: hydrograph + "UH1 JUL MEDIUM 0.6 2 2\nUH1 JUL LONG 0.5 6 2\n[RDII]\nJ1 UH1 10", section: "HYDROGRAPHS",
             words: ["UH1", "month 7", "ERROR 153"]),
        Case(name: "a negative unit hydrograph response ratio", extra: hydrograph + "UH1 MAR LONG -0.1 6 2\n[RDII]\nJ1 UH1 10",
             section: "HYDROGRAPHS", words: ["UH1", "long-term", "ERROR 153"]),
        Case(name: "a negative unit hydrograph time to peak", extra: hydrograph + "UH1 ALL MEDIUM 0.1 -1 2\n[RDII]\nJ1 UH1 10",
             section: "HYDROGRAPHS", words: ["UH1", "medium-term", "ERROR 151"]),
        Case(name: "a unit hydrograph month that is not one", extra: hydrograph + "UH1 XYZ SHORT 0.1 1 2\n[RDII]\nJ1 UH1 10",
             section: "HYDROGRAPHS", words: ["UH1", "XYZ", "ERROR 205"]),
        Case(name: "a unit hydrograph parameter that is not a number", extra: hydrograph + "UH1 ALL LONG 0.1 6 x\n[RDII]\nJ1 UH1 10",
             section: "HYDROGRAPHS", words: ["UH1", "K x", "ERROR 211"]),
        Case(name: "a unit hydrograph on a rain gage not defined", extra: hydrograph + "UH2 RG9\n[RDII]\nJ1 UH1 10",
             section: "HYDROGRAPHS", words: ["UH2", "RG9", "ERROR 209"]),
        Case(name: "a unit hydrograph without a rain gage", extra: hydrograph + "UH2 ALL SHORT 0.1 1 2\n[RDII]\nJ1 UH2 10",
             section: "HYDROGRAPHS", words: ["UH2", "no rain gage"]),
        Case(name: "a street inlet", extra: "[INLET_USAGE]\nC1 IN1 J1", section: "INLET_USAGE", words: ["C1", "inlets"]),
        Case(name: "a control rule SWMM rejects", extra: "[CONTROLS]\nRULE R1\nIF NODE J1 DEPTH > 1\nTHEN CONDUIT C1 STATUS = ON",
             section: "CONTROLS", words: ["R1", "THEN CONDUIT C1 STATUS = ON", "CLOSED or OPEN"]),
        Case(name: "a control rule on more past rainfall than SWMM keeps (48 h)", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[CONTROLS]\nRULE R1\nIF GAGE RG1 49 > 1\nTHEN CONDUIT C1 STATUS = CLOSED",
             section: "CONTROLS", words: ["R1", "49", "1–48 hours of past rain"]),
        Case(name: "a snow-only pollutant", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0 YES", section: "POLLUTANTS", words: ["TSS", "snow-only"]),
        Case(name: "a co-pollutant not defined", extra: "[POLLUTANTS]\nPB UG/L 0 0 0 0 NO ZN 0.1", section: "POLLUTANTS", words: ["PB", "ZN", "ERROR 209"]),
        Case(name: "a treatment of a pollutant not defined", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[TREATMENT]\nJ1 XX R = 0.5", section: "TREATMENT",
             words: ["J1", "XX", "ERROR 209"]),
        Case(name: "a treatment without pollutants", extra: "[TREATMENT]\nJ1 TSS R = 0.5", section: "TREATMENT", words: ["J1", "TSS", "ERROR 209"]),
        Case(name: "a treatment at a node not defined", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[TREATMENT]\nJX TSS R = 0.5", section: "TREATMENT",
             words: ["JX", "ERROR 209"]),
        Case(name: "a treatment expression that does not parse", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[TREATMENT]\nJ1 TSS R = 0.5 * (TSS",
             section: "TREATMENT", words: ["J1", "TSS", "0.5 * (TSS", "ERROR 233"]),
        Case(name: "a treatment expression with an unknown variable", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[TREATMENT]\nJ1 TSS C = 0.5 * FOO",
             section: "TREATMENT", words: ["J1", "TSS", "FOO", "ERROR 233"]),
        Case(name: "a treatment neither removal nor concentration", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[TREATMENT]\nJ1 TSS X = 0.5",
             section: "TREATMENT", words: ["J1", "TSS", "ERROR 205"]),
        Case(name: "treatments whose removals read each other", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\nCOD MG/L 0 0 0 0\n[TREATMENT]\n"
             + "J1 TSS R = 0.5 * R_COD\nJ1 COD R = R_TSS", section: "TREATMENT", words: ["J1", "TSS", "ERROR 161"]),
        Case(name: "pollutants with LID units", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n[LID_CONTROLS]\nB1 RB\n"
             + "B1 STORAGE 1000 0.75 0 0\n[LID_USAGE]\nS1 B1 1 50 0 0 0 0\n[POLLUTANTS]\nTSS MG/L 0 0 0 0", section: "LID_USAGE",
             words: ["S1", "LID", "IGNORE_QUALITY"]),
        Case(name: "a buildup function SWMM does not know", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[LANDUSES]\nL1\n[BUILDUP]\nL1 TSS LIN 1 1 1 AREA",
             section: "BUILDUP", words: ["L1", "TSS", "LIN"]),
        Case(name: "washoff of a pollutant not defined", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[LANDUSES]\nL1\n[WASHOFF]\nL1 XX EXP 0.1 1",
             section: "WASHOFF", words: ["L1", "XX", "not a pollutant"]),
        Case(name: "a buildup exponent out of range", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0\n[LANDUSES]\nL1\n[BUILDUP]\nL1 TSS POW 10 1 20 AREA",
             section: "BUILDUP", words: ["L1", "TSS", "exponent"]),
        Case(name: "a hot start file to save", extra: "[FILES]\nSAVE HOTSTART \"x.hsf\"", section: "FILES", words: ["SAVE HOTSTART", "only for a .inp given"]),
        Case(name: "a hot start file to use", extra: "[FILES]\nUSE HOTSTART \"x.hsf\"", section: "FILES", words: ["USE HOTSTART", "never for a model that reaches the engine another way"]),
        Case(name: "event periods", extra: "[EVENTS]\n01/01/2020 00:00 01/01/2020 00:30", section: "EVENTS", words: ["01/01/2020", "event periods"]),
        Case(name: "evaporation from a time series not defined", extra: "[EVAPORATION]\nTIMESERIES E1", section: "EVAPORATION", words: ["E1", "ERROR 209"]),
        Case(name: "a recovery pattern not defined", extra: "[EVAPORATION]\nCONSTANT 0.1\nRECOVERY P1", section: "EVAPORATION", words: ["P1", "ERROR 209"]),
        Case(name: "a snow pack", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0 SP1", section: "SUBCATCHMENTS",
             words: ["S1", "SP1", "IGNORE_SNOWMELT"]),
        Case(name: "a pollutant inflow", extra: "[INFLOWS]\nJ1 TSS \"\" CONCEN 1 1 5", section: "INFLOWS", words: ["J1", "TSS", "not a pollutant"]),
        Case(name: "a pollutant dry-weather inflow", extra: "[DWF]\nJ1 TSS 5", section: "DWF", words: ["J1", "TSS"]),
        Case(name: "a rain file named by a model that did not come from the command line", extra: "[RAINGAGES]\nRG2 INTENSITY 0:15 1 FILE \"rain.dat\" STA01 MM",
             section: "RAINGAGES", words: ["RG2", "rain.dat", "never for a model that reaches the engine another way"]),
        Case(name: "a baseline pattern not defined", extra: "[INFLOWS]\nJ1 FLOW \"\" FLOW 1 1 0.05 P1", section: "INFLOWS", words: ["J1", "P1", "ERROR 209"]),
        Case(name: "outfall runon", extra: "[OUTFALLS]\nO2 8 FREE NO S1\n[CONDUITS]\nC2 J1 O2 100 0.013\n[XSECTIONS]\nC2 CIRCULAR 0.5",
             section: "OUTFALLS", words: ["O2", "S1"]),
        Case(name: "seepage from a paraboloid storage unit", extra: "[STORAGE]\nST1 9.5 2 0 PARABOLIC 10 8 2 0 0 5\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "PARABOLIC", "undefined"]),
        Case(name: "two storage seepage values", extra: "[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0 50 1\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "ERROR 203"]),
        Case(name: "a storage moisture deficit above 1", extra: "[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0 50 1 1.3\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "initial moisture deficit 1.3"]),
        Case(name: "a conical storage unit of width 0", extra: "[STORAGE]\nST1 9.5 2 0 CONICAL 10 0 1\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "CONICAL W 0.0", "ERROR 211"]),
        Case(name: "a paraboloid storage unit of height 0", extra: "[STORAGE]\nST1 9.5 2 0 PARABOLIC 10 8 0\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "PARABOLIC Z"]),
        Case(name: "pollutants in a seeping storage unit", extra: "[POLLUTANTS]\nTSS MG/L 0 0 0 0 NO\n[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0 5\n"
             + "[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5", section: "STORAGE", words: ["ST1", "seeps", "IGNORE_QUALITY"]),
        Case(name: "pollutants in an evaporating storage unit", extra: "[EVAPORATION]\nCONSTANT 5\n[POLLUTANTS]\nTSS MG/L 0 0 0 0 NO\n"
             + "[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0.5\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "evaporates", "IGNORE_QUALITY"]),
        // SWMM 5.2.4 adds a month's evaporation adjustment again at each climate update while a
        // TIMESERIES rate waits for its next entry (climate.c setEvap).
        Case(name: "evaporation adjustments over a TIMESERIES rate", extra: "[EVAPORATION]\nTIMESERIES E1\n[TIMESERIES]\nE1 0 5\n"
             + "[ADJUSTMENTS]\nEVAPORATION 1 1 1 1 1 1 1 1 1 1 1 1",
             section: "ADJUSTMENTS", words: ["TIMESERIES", "setEvap"]),
        // [ADJUSTMENTS] reach what SWMM scales with them and the engine does not.
        Case(name: "rainfall adjustments of a rain file", extra: "[ADJUSTMENTS]\nRAINFALL 1 1 1 1 1 1 1 1 1 1 1 1.2\n"
             + "[RAINGAGES]\nRG2 INTENSITY 0:15 1 FILE \"rain.dat\" STA01 MM", section: "ADJUSTMENTS", words: ["RG2", "rain files"]),
        Case(name: "rainfall adjustments of the rain driving RDII", extra: hydrograph + "[RDII]\nJ1 UH1 10\n[ADJUSTMENTS]\nRAINFALL 0.5 1 1 1 1 1 1 1 1 1 1 1",
             section: "ADJUSTMENTS", words: ["J1", "RDII", "IGNORE_RDII"]),
        Case(name: "LID units under conductivity adjustments", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[LID_CONTROLS]\nG1 RG\nG1 SURFACE 200 0.0 0 0 0\nG1 SOIL 300 0.45 0.2 0.08 20 8 80\nG1 STORAGE 0 0.75 8 0\n[LID_USAGE]\nS1 G1 1 10 0 0 0 0\n"
             + "[ADJUSTMENTS]\nCONDUCTIVITY 2 1 1 1 1 1 1 1 1 1 1 1", section: "LID_USAGE", words: ["S1", "CONDUCTIVITY"]),
        Case(name: "LID units under a recovery pattern", extra: subcatchment + "\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n"
             + "[LID_CONTROLS]\nG1 RG\nG1 SURFACE 200 0.0 0 0 0\nG1 SOIL 300 0.45 0.2 0.08 20 8 80\nG1 STORAGE 0 0.75 8 0\n[LID_USAGE]\nS1 G1 1 10 0 0 0 0\n"
             + "[PATTERNS]\nP1 MONTHLY 2 1 1 1 1 1 1 1 1 1 1 1\n[EVAPORATION]\nCONSTANT 1\nRECOVERY P1", section: "LID_USAGE", words: ["S1", "RECOVERY"]),
        Case(name: "storage seepage under conductivity adjustments", extra: "[ADJUSTMENTS]\nCONDUCTIVITY 2 1 1 1 1 1 1 1 1 1 1 1\n"
             + "[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0 5\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "CONDUCTIVITY"]),
        Case(name: "Green–Ampt storage seepage under a recovery pattern", extra: "[PATTERNS]\nP1 MONTHLY 2 1 1 1 1 1 1 1 1 1 1 1\n"
             + "[EVAPORATION]\nCONSTANT 0\nRECOVERY P1\n"
             + "[STORAGE]\nST1 9.5 2 0 FUNCTIONAL 10 0 100 0 0 50 1 0.3\n[CONDUITS]\nC3 ST1 O1 50 0.013\n[XSECTIONS]\nC3 CIRCULAR 0.5",
             section: "STORAGE", words: ["ST1", "Green–Ampt", "RECOVERY"]),
        Case(name: "a negative conduit seepage rate", extra: "[LOSSES]\nC1 0 0 0 NO -2.5", section: "LOSSES", words: ["C1", "≥ 0"]),
        Case(name: "conduit seepage under conductivity adjustments", extra: "[LOSSES]\nC1 0 0 0 NO 2.5\n[ADJUSTMENTS]\nCONDUCTIVITY 1 1 1 1 1 1 1 1 1 1 1 0.5",
             section: "LOSSES", words: ["C1", "CONDUCTIVITY"]),
        Case(name: "a culvert code beyond SWMM's 57", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 CIRCULAR 0.5 0 0 0 1 60",
             section: "XSECTIONS", words: ["C2", "culvert code 60"]),
        Case(name: "a road width that is not a number", extra: "[WEIRS]\nW1 J1 O1 ROADWAY 0 1.5 NO 0 0 YES -3 PAVED\n[XSECTIONS]\nW1 RECT_OPEN 1 5",
             section: "WEIRS", words: ["W1", "road width"]),
        Case(name: "a street that is not defined", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 STREET ST1 0 0 0 1", section: "XSECTIONS",
             words: ["C2", "street ST1"]),
        Case(name: "a street with three sides", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 STREET ST1 0 0 0 1\n"
             + "[STREETS]\nST1 6 0.15 2 0.016 0 0 3", section: "STREETS", words: ["ST1", "sides 3"]),
        Case(name: "a transect that is not defined", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 IRREGULAR T9 0 0 0 1",
             section: "XSECTIONS", words: ["C2", "transect T9"]),
        Case(name: "a transect with one station", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 IRREGULAR T1 0 0 0 1\n"
             + "[TRANSECTS]\nNC 0 0 0.03\nX1 T1 1 0 0 0 0 0 0 0\nGR 2 0", section: "TRANSECTS", words: ["T1", "fewer than 2 stations"]),
        Case(name: "transect stations out of order", extra: "[TRANSECTS]\nNC 0 0 0.03\nX1 T1 3 0 0 0 0 0 0 0\nGR 2 0 0 5 2 4",
             section: "TRANSECTS", words: ["T1", "must not decrease"]),
        Case(name: "a transect without a channel n", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 IRREGULAR T1 0 0 0 1\n"
             + "[TRANSECTS]\nX1 T1 2 0 0 0 0 0 0 0\nGR 2 0 0 5 2 10", section: "TRANSECTS", words: ["T1", "Manning"]),
        Case(name: "an unknown transect keyword", extra: "[TRANSECTS]\nNC 0 0 0.03\nX2 T1 2 0 0 0 0 0 0 0", section: "TRANSECTS", words: ["X2"]),
        Case(name: "a custom shape without its curve", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 CUSTOM 1 K1 0 0 1",
             section: "XSECTIONS", words: ["C2", "shape curve K1"]),
        Case(name: "a custom shape on a storage curve", extra: "[CONDUITS]\nC2 J1 O1 100 0.013\n[XSECTIONS]\nC2 CUSTOM 1 K1 0 0 1\n"
             + "[CURVES]\nK1 STORAGE 0 1\nK1 1 1", section: "XSECTIONS", words: ["C2", "K1", "not a SHAPE curve"]),
        Case(name: "a weir coefficient curve that is not defined", extra: "[WEIRS]\nW1 J1 O1 TRANSVERSE 0 1.5 NO 0 0 YES 0 * WC1\n[XSECTIONS]\nW1 RECT_OPEN 1 5",
             section: "WEIRS", words: ["W1", "WC1", "not defined"]),
    ]

    @Test("refused with its section and the item's name", arguments: cases)
    func refused(_ c: Case) throws {
        let model = try SWMMModel(parsing: Self.model(options: c.options, c.extra))
        do {
            _ = try DrainageRun.run(model)
            Issue.record("\(c.name): ran, expected a refusal")
        } catch let e as SWMMInputError {
            #expect(e.section == c.section, "\(c.name): \(e)")
            for w in c.words { #expect(e.description.contains(w), "\(c.name): \(e) does not say \(w)") }
        }
    }

    @Test("what SWMM lets a model switch off runs with the switch, as SWMM runs it",
          arguments: [("IGNORE_QUALITY YES", "[POLLUTANTS]\nTSS MG/L 0 0 0 0 0\n[INFLOWS]\nJ1 TSS \"\" CONCEN 1 1 5"),
                      ("IGNORE_GROUNDWATER YES", "[GROUNDWATER]\nS1 AQ1 J1 6 0 0 0 0 0 0 0 0"),
                      ("IGNORE_RDII YES", hydrograph + "[RDII]\nJ1 UH1 10"),
                      // SWMM reads no rain file when rainfall is ignored.
                      ("IGNORE_RAINFALL YES", "[RAINGAGES]\nRG9 INTENSITY 0:15 1 FILE \"absent.dat\" STA01 MM"),
                      ("IGNORE_SNOWMELT YES", "[TEMPERATURE]\nTIMESERIES T1"),
                      ("COMPATIBILITY 5", "[TAGS]\nNode J1 Inlet\n[MAP]\nDIMENSIONS 0 0 10 10\n[LID_CONTROLS]\nGR1 VS\nGR1 SURFACE 100 0 0.1 1 5")])
    func switchedOff(option: String, extra: String) throws {
        let base = try DrainageRun.run(try SWMMModel(parsing: Self.model(options: "", "[INFLOWS]\nJ1 FLOW \"\" FLOW 1 1 0.05")))
        let text = Self.model(options: option, extra + "\n[INFLOWS]\nJ1 FLOW \"\" FLOW 1 1 0.05")
        let switched = try DrainageRun.run(try SWMMModel(parsing: text))
        #expect(switched.routing.externalOutflow == base.routing.externalOutflow)
        #expect(base.routing.externalOutflow > 100, "the inflow reached the outfall")
    }
}
