import Foundation
import SWMMFormat

// Reading `[CONTROLS]` as SWMM 5.2's controls.c reads it: keywords match by prefix, case aside;
// premises `<object> <id> <attribute> <relation> <value or variable>`, or a named VARIABLE or an
// EXPRESSION on the left; actions `<object> <id> STATUS|SETTING = <value>` or `= CURVE c`,
// `= TIMESERIES ts`, `= PID kp ki kd`. Whatever SWMM rejects is refused naming the rule and clause.

extension ControlRules {
    /// The objects a control rule can name, for resolving identifiers.
    struct Names {
        var nodes: [String: Int]
        var links: [String: (index: Int, kind: LinkKindCode)]
        var gages: [String: Int]
        var curves: [String: SWMMCurve]
        var series: (String) throws -> TimeSeries?
    }

    static let objectWords = ["GAGE", "NODE", "LINK", "CONDUIT", "PUMP", "ORIFICE", "WEIR", "OUTLET", "SIMULATION"]
    static let attributeWords = ["DEPTH", "MAXDEPTH", "HEAD", "VOLUME", "INFLOW", "FLOW", "FULLFLOW", "FULLDEPTH", "STATUS",
                                 "SETTING", "LENGTH", "SLOPE", "VELOCITY", "TIMEOPEN", "TIMECLOSED", "TIME", "DATE",
                                 "CLOCKTIME", "DAYOFYEAR", "DAY", "MONTH"]
    static let keywords = ["RULE", "IF", "AND", "OR", "THEN", "ELSE", "PRIORITY", "VARIABLE", "EXPRESSION"]

    /// SWMM's `findmatch`: the first word `token` starts with, case aside.
    static func match(_ token: String, _ words: [String]) -> Int? {
        let t = token.uppercased()
        return words.firstIndex { t.hasPrefix($0) }
    }

    /// Reads the `[CONTROLS]` lines.
    /// - Throws: `SWMMInputError` (section CONTROLS, field = the clause keyword) naming the rule,
    ///   the clause and what is wrong.
    static func parse(lines: [[String]], names: Names, ruleStep: Double, units: SWMMUnits,
                      start: Double, gages: [Hyetograph]) throws -> ControlRules {
        var rules: [Rule] = []
        var variables: [Variable] = [], variableNames: [String] = []
        var expressions: [ControlExpression] = [], expressionNames: [String] = []
        enum State { case none, rule, premise, then, elseActions, priority }
        var state = State.none
        for tokens in lines where !tokens.isEmpty {
            let clause = tokens.joined(separator: " ")
            let ruleName = rules.last?.name
            func fail(_ why: String) -> SWMMInputError {
                let field = match(tokens[0], keywords).map { keywords[$0] } ?? tokens[0]
                let subject = ruleName.map { "rule \($0), clause '\(clause)'" } ?? "clause '\(clause)'"
                return SWMMInputError(line: nil, section: "CONTROLS", field: field, reason: "\(subject): \(why)")
            }
            guard let keyword = match(tokens[0], keywords) else { throw fail("\(tokens[0]) is not a rule keyword (RULE, IF, AND, OR, THEN, ELSE, PRIORITY, VARIABLE, EXPRESSION)") }
            let context = ParseContext(tokens: tokens, names: names, variableNames: variableNames, variables: variables,
                                       expressionNames: expressionNames, units: units, start: start)
            switch keywords[keyword] {
            case "RULE":
                guard tokens.count == 2 else { throw fail(tokens.count < 2 ? "the rule has no name" : "a RULE line holds only the rule's name") }
                rules.append(Rule(name: tokens[1], priority: 0, premises: [], thenActions: [], elseActions: []))
                state = .rule
            case "VARIABLE":
                guard tokens.count >= 5, tokens[2] == "=" else { throw fail("expected VARIABLE name = object id attribute (or SIMULATION attribute)") }
                if match(tokens[1], attributeWords) != nil { throw fail("a variable cannot be named after an attribute (\(tokens[1]))") }
                var k = 3
                let v = try context.variable(&k).mapError(fail)
                variables.append(v); variableNames.append(tokens[1].uppercased())
            case "EXPRESSION":
                guard tokens.count >= 4, tokens[2] == "=" else { throw fail("expected EXPRESSION name = math expression") }
                do {
                    let e = try ControlExpression.parse(tokens[3...].joined(separator: " ")) { n in variableNames.firstIndex(of: n) }
                    expressions.append(e); expressionNames.append(tokens[1].uppercased())
                } catch let e as ControlExpression.ExpressionError { throw fail("the expression does not read: \(e.reason)") }
            case let k where k == "IF" || k == "OR" || (k == "AND" && state == .premise):  // an AND after premises is one more premise
                if k == "IF" && state != .rule { throw fail("IF must follow a RULE line") }
                if k == "OR" && state != .premise { throw fail("OR must follow an IF or AND premise") }
                let p = try context.premise(isOr: k == "OR").mapError(fail)
                rules[rules.count - 1].premises.append(p)
                state = .premise
            case "THEN", "ELSE", "AND":
                let k = keywords[keyword]
                if k == "THEN" && state != .premise { throw fail("THEN must follow the rule's premises") }
                if k == "ELSE" && state != .then { throw fail("ELSE must follow the THEN actions") }
                if k == "AND" && state != .then && state != .elseActions { throw fail("AND must follow IF, THEN or ELSE") }
                if k == "THEN" { state = .then } else if k == "ELSE" { state = .elseActions }
                let a = try context.action(rule: rules.count - 1).mapError(fail)
                // SWMM links each new action in front of the rule's list.
                if state == .then { rules[rules.count - 1].thenActions.insert(a, at: 0) } else { rules[rules.count - 1].elseActions.insert(a, at: 0) }
            default: // PRIORITY
                guard state == .then || state == .elseActions else { throw fail("PRIORITY must follow the rule's actions") }
                guard tokens.count == 2, let p = Double(tokens[1]) else { throw fail("PRIORITY takes one number") }
                rules[rules.count - 1].priority = p
                state = .priority
            }
        }
        let rainUnit = units.rainRate * 3_600_000   // mm/h per model rain-rate unit
        return ControlRules(rules: rules, variables: variables, expressions: expressions,
                            gages: gages.map { g in Hyetograph(starts: g.starts, intensities: g.intensities.map { $0 / rainUnit }, lastInterval: g.lastInterval) },
                            lengthUnit: units.length, volumeUnit: units.volume, flowUnit: units.flowRate,
                            startDay: start / 86_400, ruleStep: ruleStep)
    }
}

/// Either a value or the reason a clause does not read.
enum Parsed<T> {
    case ok(T), failure(String)
    func mapError(_ f: (String) -> SWMMInputError) throws -> T {
        switch self {
        case .ok(let v): return v
        case .failure(let why): throw f(why)
        }
    }
}

/// The tokens of one clause and what it may name.
private struct ParseContext {
    typealias R = ControlRules
    var tokens: [String]
    var names: R.Names
    var variableNames: [String]
    var variables: [R.Variable]
    var expressionNames: [String]
    var units: SWMMUnits
    var start: Double

    /// `<object> <id> <attribute>` or `SIMULATION <attribute>` from token `k`; `k` ends on the attribute.
    func variable(_ k: inout Int) -> Parsed<R.Variable> {
        guard k < tokens.count, let object = R.match(tokens[k], R.objectWords) else {
            return .failure("\(k < tokens.count ? tokens[k] : "nothing") is not an object (GAGE, NODE, LINK, CONDUIT, PUMP, ORIFICE, WEIR, OUTLET, SIMULATION)")
        }
        let word = R.objectWords[object]
        var index = -1, kind = LinkKindCode.conduit
        if word != "SIMULATION" {
            k += 1
            guard k < tokens.count else { return .failure("\(word) names no object") }
            let id = tokens[k]
            switch word {
            case "GAGE":
                guard let g = names.gages[id] else { return .failure("rain gage \(id) is not defined") }
                index = g
            case "NODE":
                guard let n = names.nodes[id] else { return .failure("node \(id) is not defined") }
                index = n
            default:
                guard let l = names.links[id] else { return .failure("link \(id) is not defined") }
                index = l.index; kind = l.kind
            }
        }
        k += 1
        guard k < tokens.count else { return .failure("\(word) has no attribute") }
        let attr = tokens[k].uppercased()
        if word == "GAGE" {
            if attr == "INTENSITY" { return .ok(.gageIntensity(index)) }
            if let h = Int(attr), (1...48).contains(h) { return .ok(.gagePastRain(index, hours: h)) }
            return .failure("\(tokens[k]) is not a rain gage attribute (INTENSITY or 1–48 hours of past rain)")
        }
        guard let a = R.match(attr, R.attributeWords) else { return .failure("\(tokens[k]) is not an attribute") }
        let name = R.attributeWords[a]
        let bad = Parsed<R.Variable>.failure("\(word) has no attribute \(name)")
        switch word {
        case "NODE":
            let map: [String: R.NodeAttribute] = ["DEPTH": .depth, "MAXDEPTH": .maxDepth, "HEAD": .head, "VOLUME": .volume, "INFLOW": .inflow]
            guard let n = map[name] else { return bad }
            return .ok(.node(index, n))
        case "SIMULATION":
            let map: [String: R.SimulationAttribute] = ["TIME": .time, "DATE": .date, "CLOCKTIME": .clockTime, "DAY": .day,
                                                         "MONTH": .month, "DAYOFYEAR": .dayOfYear]
            guard let s = map[name] else { return bad }
            return .ok(.simulation(s))
        default:
            let all: [String: R.LinkAttribute] = ["FLOW": .flow, "FULLFLOW": .fullFlow, "FULLDEPTH": .fullDepth, "DEPTH": .depth,
                                                   "VELOCITY": .velocity, "LENGTH": .length, "SLOPE": .slope, "STATUS": .status,
                                                   "SETTING": .setting, "TIMEOPEN": .timeOpen, "TIMECLOSED": .timeClosed]
            guard let l = all[name] else { return bad }
            let allowed: Set<String>
            switch word {
            case "LINK", "CONDUIT": allowed = ["STATUS", "DEPTH", "FULLFLOW", "FULLDEPTH", "FLOW", "LENGTH", "SLOPE", "VELOCITY", "TIMEOPEN", "TIMECLOSED"]
            case "PUMP": allowed = ["FLOW", "SETTING", "STATUS", "TIMEOPEN", "TIMECLOSED"]
            default: allowed = ["FLOW", "SETTING", "TIMEOPEN", "TIMECLOSED"]
            }
            guard allowed.contains(name) else { return bad }
            return .ok(.link(index, kind, l))
        }
    }

    /// A premise from token 1 on.
    func premise(isOr: Bool) -> Parsed<R.Premise> {
        guard tokens.count >= 4 else { return .failure("a premise needs a variable, a relation and a value") }
        var n = 1
        let left: R.Premise.Left
        var attribute = R.Attribute.other
        if let e = expressionNames.firstIndex(of: tokens[1].uppercased()) {
            left = .expression(e)
        } else if let v = variableNames.firstIndex(of: tokens[1].uppercased()) {
            left = .variable(variables[v]); attribute = variables[v].attribute
        } else {
            switch variable(&n) {
            case .ok(let v): left = .variable(v); attribute = v.attribute
            case .failure(let why): return .failure(why)
            }
        }
        n += 1
        guard n < tokens.count, let relation = R.Relation(rawValue: tokens[n]) else {
            return .failure("\(n < tokens.count ? tokens[n] : "nothing") is not a relation (=, <>, <, <=, >, >=)")
        }
        n += 1
        guard n < tokens.count else { return .failure("the premise has no right-hand side") }
        let right: R.Premise.Right
        if let v = variableNames.firstIndex(of: tokens[n].uppercased()) {
            right = .variable(variables[v])
        } else if R.match(tokens[n], R.objectWords) != nil {
            switch variable(&n) {
            case .ok(let v): right = .variable(v)
            case .failure(let why): return .failure(why)
            }
        } else {
            switch value(tokens[n], attribute) {
            case .ok(let x): right = .value(x)
            case .failure(let why): return .failure(why)
            }
        }
        n += 1
        if n < tokens.count { return .failure("one clause per line: '\(tokens[n...].joined(separator: " "))' follows the premise") }
        return .ok(R.Premise(isOr: isOr, left: left, relation: relation, right: right, attribute: attribute))
    }

    /// A premise's constant, read as its left side's attribute reads (SWMM's getPremiseValue).
    func value(_ token: String, _ attribute: R.Attribute) -> Parsed<Double> {
        switch attribute {
        case .link(.status):
            if let s = R.match(token, ["OFF", "ON"]) { return .ok(Double(s)) }
            if let s = R.match(token, ["CLOSED", "OPEN"]) { return .ok(Double(s)) }
            return .failure("\(token) is not a status (ON, OFF, OPEN, CLOSED)")
        case .simulation(.time), .simulation(.clockTime), .link(.timeOpen), .link(.timeClosed):
            guard let h = SWMMLine.hours(clock: token) else { return .failure("\(token) is not a time (hh:mm:ss or decimal hours)") }
            return .ok(h / 24)
        case .simulation(.date):
            guard let s = SWMMModel.epochSeconds(date: token, time: nil) else { return .failure("\(token) is not a date MM/DD/YYYY") }
            return .ok(s / 86_400)
        case .simulation(.day):
            guard let d = Double(token) else { return .failure("\(token) is not a number") }
            return (1...7).contains(d) ? .ok(d) : .failure("day of week \(token) is not 1 (Sunday) to 7")
        case .simulation(.month):
            guard let m = Double(token) else { return .failure("\(token) is not a number") }
            return (1...12).contains(m) ? .ok(m) : .failure("month \(token) is not 1 to 12")
        case .simulation(.dayOfYear):
            let p = token.split(separator: "/")
            if p.count == 2, let m = Int(p[0]), let d = Int(p[1]), let s = SWMMModel.epochSeconds(date: "\(m)/\(d)/1947", time: nil),
               let jan1 = SWMMModel.epochSeconds(date: "1/1/1947", time: nil) {
                return .ok((s - jan1) / 86_400 + 1)
            }
            guard let d = Double(token), d >= 1, d <= 365 else { return .failure("\(token) is not a day of year (MM/DD or 1–365)") }
            return .ok(d)
        default:
            guard let x = Double(token) else { return .failure("\(token) is not a number") }
            return .ok(x)
        }
    }

    /// An action from token 1 on (`<object> <id> <attribute> = <setting>`).
    func action(rule: Int) -> Parsed<R.Action> {
        guard tokens.count >= 6 else { return .failure("an action reads <object> <id> STATUS|SETTING = <value>") }
        guard let o = R.match(tokens[1], R.objectWords), ["CONDUIT", "PUMP", "ORIFICE", "WEIR", "OUTLET"].contains(R.objectWords[o]) else {
            return .failure("\(tokens[1]) cannot be controlled (CONDUIT, PUMP, ORIFICE, WEIR or OUTLET)")
        }
        let word = R.objectWords[o]
        let expected: [String: LinkKindCode] = ["CONDUIT": .conduit, "PUMP": .pump, "ORIFICE": .orifice, "WEIR": .weir, "OUTLET": .outlet]
        guard let link = names.links[tokens[2]], link.kind == expected[word] else { return .failure("\(tokens[2]) is not a \(word.lowercased())") }
        guard let a = R.match(tokens[3], R.attributeWords) else { return .failure("\(tokens[3]) is not an attribute") }
        let attribute = R.attributeWords[a]
        var source = R.Action.Source.constant(1)
        var used = 6
        if word == "CONDUIT" || (word == "PUMP" && attribute == "STATUS") {
            guard attribute == "STATUS" else { return .failure("a \(word.lowercased()) takes a STATUS action") }
            let words = word == "CONDUIT" ? ["CLOSED", "OPEN"] : ["OFF", "ON"]
            guard let s = R.match(tokens[5], words) else { return .failure("\(tokens[5]) is not \(words.joined(separator: " or "))") }
            source = .constant(Double(s))
        } else {
            guard attribute == "SETTING" else { return .failure("a \(word.lowercased()) takes a SETTING action") }
            switch R.match(tokens[5], ["CURVE", "TIMESERIES", "PID"]) {
            case 0?:
                guard tokens.count >= 7, let c = names.curves[tokens[6]] else { return .failure("curve \(tokens.count >= 7 ? tokens[6] : "") is not defined") }
                source = .curve(x: c.points.map(\.x), y: c.points.map(\.y)); used = 7
            case 1?:
                guard tokens.count >= 7 else { return .failure("TIMESERIES names no series") }
                guard let s = try? names.series(tokens[6]) else { return .failure("time series \(tokens[6]) is not defined or does not read") }
                source = .timeSeries(s); used = 7
            case 2?:
                guard tokens.count >= 9 else { return .failure("PID takes three coefficients (gain, integral and derivative times in minutes)") }
                guard let kp = Double(tokens[6]), let ki = Double(tokens[7]), let kd = Double(tokens[8]) else {
                    return .failure("PID coefficients \(tokens[6...8].joined(separator: " ")) are not numbers")
                }
                source = .pid(kp: kp, ki: ki, kd: kd); used = 9
            default:
                guard let x = Double(tokens[5]) else { return .failure("\(tokens[5]) is not a number") }
                if word != "PUMP" && (x < 0 || x > 1) { return .failure("a \(word.lowercased()) setting must lie between 0 and 1, not \(tokens[5])") }
                source = .constant(x)
            }
        }
        if used < tokens.count { return .failure("one clause per line: '\(tokens[used...].joined(separator: " "))' follows the action") }
        return .ok(R.Action(rule: rule, link: link.index, source: source))
    }
}
