import ArgumentParser
import Configuration
import Foundation
import GeoCore
import SystemPackage

/// The service commands' options (`serve`, `worker`) read from the command line, the environment
/// and a configuration file, through swift-configuration: for every option the command declares,
/// the command line's value first, else the environment variable `CITYTWIN_<COMMAND>_<OPTION>`
/// (`CITYTWIN_SERVE_MAX_BODY_BYTES=1048576`), else the file's `<command>.<option>` with the option
/// in camelCase (`{"serve": {"maxBodyBytes": 1048576, "corsOrigin": ["https://a.example"]}}`),
/// else the option's default. The file is `--config FILE` or `CITYTWIN_CONFIG`. A flag is `true`
/// or `false`; a repeatable option is a JSON array in the file and a comma-separated list in the
/// environment.
///
/// What the environment or the file gives is added to the command line before it is parsed, so
/// every value passes the same checks as a typed one; a variable or key that names no option of
/// the command is refused, naming it and the options there are.
enum ServiceConfiguration {
    /// The commands read so.
    static let commands: Set<String> = ["serve", "worker"]
    /// The environment variable naming the configuration file when `--config` is not given.
    static let fileVariable = "CITYTWIN_CONFIG"

    /// `arguments` (without the program name) with the options the environment and the
    /// configuration file give for the command they run, which the command line does not.
    static func arguments(_ arguments: [String], environment: [String: String]) async throws -> [String] {
        guard let command = arguments.first, commands.contains(command) else { return arguments }
        let prefix = "CITYTWIN_\(command.uppercased())_"
        let file = value(of: "--config", in: arguments) ?? environment[fileVariable].flatMap { $0.isEmpty ? nil : $0 }
        let variables = environment.keys.filter { $0.hasPrefix(prefix) }.sorted()
        guard file != nil || !variables.isEmpty else { return arguments }

        let options = try declaredOptions(of: command)
        let known = Dictionary(uniqueKeysWithValues: options.map { (environmentName(command, $0.name), $0.name) })
        if let unknown = variables.first(where: { known[$0] == nil }) {
            throw CommandFailure("\(unknown) names no option of citytwin \(command); its options: \(options.map(\.name).joined(separator: ", "))")
        }
        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["citytwin"])]
        if let file {
            try checkKeys(of: file, command: command, options: options)
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file)))
            } catch {
                throw CommandFailure("the configuration file \(URL(fileURLWithPath: file).lastPathComponent) cannot be read as JSON: \(error)")
            }
        }
        let reader = ConfigReader(providers: providers)
        var result = arguments
        for option in options where !isGiven(option.name, in: arguments) {
            let key = ConfigKey([command, camelCase(option.name)])
            switch option.kind {
            case .flag:
                if reader.bool(forKey: key) == true { result.append("--\(option.name)") }
            case .repeating:
                for v in reader.stringArray(forKey: key) ?? reader.string(forKey: key).map({ [$0] }) ?? [] {
                    result += ["--\(option.name)", v]
                }
            case .single:
                let text = reader.string(forKey: key) ?? reader.int(forKey: key).map(String.init)
                    ?? reader.double(forKey: key).map { "\($0)" } ?? reader.bool(forKey: key).map { "\($0)" }
                if let text { result += ["--\(option.name)", text] }
            }
        }
        return result
    }

    /// An option of a command as its help describes it.
    struct Option: Equatable {
        enum Kind { case single, repeating, flag }
        var name: String
        var kind: Kind
    }

    /// The long options `command` declares (`--help` and `--config` aside), from the description
    /// ArgumentParser gives of it (`--experimental-dump-help`).
    static func declaredOptions(of command: String) throws -> [Option] {
        let dump: String
        do {
            _ = try CityTwinCommand.parseAsRoot([command, "--experimental-dump-help"])
            return []
        } catch {
            dump = CityTwinCommand.fullMessage(for: error)
        }
        // ArgumentParser's tool description (its ToolInfoV0 JSON): command.arguments[] with kind,
        // preferredName {kind, name} and isRepeating.
        let info = try JSONDecoder().decode(JSONValue.self, from: Data(dump.utf8))
        return (info["command"]?["arguments"]?.arrayValue ?? []).compactMap { a in
            guard let kind = a["kind"]?.stringValue, kind != "positional", a["preferredName"]?["kind"]?.stringValue == "long",
                  let name = a["preferredName"]?["name"]?.stringValue, !["help", "config"].contains(name) else { return nil }
            return Option(name: name, kind: kind == "flag" ? .flag : a["isRepeating"]?.boolValue == true ? .repeating : .single)
        }
    }

    /// `CITYTWIN_SERVE_MAX_BODY_BYTES` for `serve`'s `max-body-bytes`.
    static func environmentName(_ command: String, _ option: String) -> String {
        "CITYTWIN_\(command.uppercased())_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `maxBodyBytes` for `max-body-bytes`.
    static func camelCase(_ option: String) -> String {
        let parts = option.split(separator: "-")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The file's members under `command` name options of it, and nothing else is at its top but
    /// the service commands.
    private static func checkKeys(of file: String, command: String, options: [Option]) throws {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw CommandFailure("the configuration file \(name) cannot be read (\(error.localizedDescription))")
        }
        guard let root = (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue else {
            throw CommandFailure("the configuration file \(name) must be a JSON object: {\"serve\": {…}, \"worker\": {…}}")
        }
        if let other = root.keys.sorted().first(where: { !commands.contains($0) }) {
            throw CommandFailure("\(name): '\(other)' is not a command read from the file (\(commands.sorted().joined(separator: ", ")))")
        }
        guard let members = root[command] else { return }
        guard let object = members.objectValue else { throw CommandFailure("\(name): '\(command)' must be an object of options") }
        let allowed = Set(options.map { camelCase($0.name) })
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw CommandFailure("\(name): '\(command).\(unknown)' names no option of citytwin \(command); its options: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    /// The value of `--name VALUE` or `--name=VALUE` in `arguments`.
    private static func value(of name: String, in arguments: [String]) -> String? {
        for (i, a) in arguments.enumerated() {
            if a == name, i + 1 < arguments.count { return arguments[i + 1] }
            if a.hasPrefix(name + "=") { return String(a.dropFirst(name.count + 1)) }
        }
        return nil
    }

    private static func isGiven(_ option: String, in arguments: [String]) -> Bool {
        arguments.contains { $0 == "--\(option)" || $0.hasPrefix("--\(option)=") }
    }
}
