/// Who is asking. Every read and write of the store names its caller; the store applies the
/// sharing class, the negative list, attribute masking and per-department write rights itself.
public enum Caller: Hashable, Sendable {
    /// A member of the public: open, non-negative-listed layers only.
    case anonymous
    /// A person acting for a government department (e.g. "应急管理局"); `user` names the
    /// person for version authors and the audit log.
    case department(name: String, role: DepartmentRole, user: String? = nil)
    /// The platform administrator: sees and writes everything, unmasked.
    case admin

    /// The role of a person within a department.
    public enum DepartmentRole: String, Hashable, Sendable, Codable {
        case viewer, editor, admin
    }

    /// The caller as access rules see it: the same department and role without the person, so
    /// caches of what a caller may read (road graphs, geocoders) hold one entry per access class,
    /// not one per user.
    public var accessClass: Caller {
        if case .department(let name, let role, _) = self { return .department(name: name, role: role) }
        return self
    }

    /// The department's name, for departmental callers.
    public var departmentName: String? {
        if case .department(let name, _, _) = self { return name }
        return nil
    }

    /// Who wrote a version: the user, else "<department>/<role>", "admin" or "anonymous".
    public var author: String {
        switch self {
        case .anonymous: "anonymous"
        case .admin: "admin"
        case .department(let name, let role, let user): user ?? "\(name)/\(role.rawValue)"
        }
    }

    /// A short text for audit rows: "anonymous", "admin" or "<department>/<role>".
    public var auditRole: String {
        switch self {
        case .anonymous: "anonymous"
        case .admin: "admin"
        case .department(_, let role, _): role.rawValue
        }
    }
}
