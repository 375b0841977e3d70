//! Writes: create, update, patch and server-side apply, with the defaults and field
//! ownership the API server applies, and CustomResourceDefinitions registering their kinds.

use super::*;

impl State {
    pub(super) fn writer<'a>(
        info: &'a ResourceInfo,
        options: &'a WriteOptions,
        api_version: &'a str,
        time: &'a str,
        scope: Scope,
    ) -> Writer<'a> {
        Writer {
            manager: &options.field_manager,
            api_version,
            time,
            scope,
            lists: if info.builtin {
                ListKeys::Builtin
            } else {
                ListKeys::Custom(&info.list_map_keys)
            },
        }
    }

    pub fn create(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        body: Value,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        self.create_inner(info, namespace, body, options, true)
    }

    pub(super) fn create_inner(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        mut object: Value,
        options: &WriteOptions,
        record_fields: bool,
    ) -> Result<Arc<Value>, ApiError> {
        Self::check_type(info, &mut object)?;
        Self::check_namespace(info, namespace, &mut object)?;
        fold_string_data(info, &mut object);
        let store_key = info.store_key();
        let generate_name = object["metadata"]["generateName"]
            .as_str()
            .map(str::to_string);
        let mut name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if name.is_empty() {
            let Some(prefix) = generate_name else {
                return Err(ApiError::invalid(
                    &info.group,
                    &info.kind,
                    "",
                    vec![cause(
                        "FieldValueRequired",
                        "metadata.name",
                        "Required value: name or generateName is required",
                    )],
                ));
            };
            loop {
                let candidate = format!("{prefix}{}", random_suffix());
                let taken = self.collection(&store_key).is_some_and(|objects| {
                    objects.contains_key(&Self::object_key(info, namespace, &candidate))
                });
                if !taken {
                    name = candidate;
                    break;
                }
            }
            metadata_mut(&mut object).insert("name".into(), json!(name));
        }
        if let Some(invalid) = name_cause(info, &name).or_else(|| annotations_cause(&object)) {
            return Err(ApiError::invalid(
                &info.group,
                &info.kind,
                &name,
                vec![invalid],
            ));
        }
        if info.namespaced {
            let namespace = namespace.unwrap_or_default();
            match self.namespace_object(namespace) {
                None => return Err(ApiError::not_found("", "namespaces", namespace)),
                Some(existing) if is_terminating(existing) => {
                    return Err(ApiError::forbidden(format!(
                        "{} \"{name}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
                        info.plural
                    )));
                }
                Some(_) => {}
            }
        }
        let key = Self::object_key(info, namespace, &name);
        if self
            .collection(&store_key)
            .is_some_and(|objects| objects.contains_key(&key))
        {
            return Err(ApiError::already_exists(&info.group, &info.plural, &name));
        }
        let now = now_rfc3339();
        {
            let metadata = metadata_mut(&mut object);
            for server_owned in [
                "uid",
                "resourceVersion",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "selfLink",
            ] {
                metadata.remove(server_owned);
            }
            if record_fields {
                metadata.remove("managedFields");
            }
            metadata.insert("uid".into(), json!(new_uid()));
            metadata.insert("creationTimestamp".into(), json!(now));
            if info.tracks_generation {
                metadata.insert("generation".into(), json!(1));
            } else {
                metadata.remove("generation");
            }
        }
        if info.has_status
            && let Some(map) = object.as_object_mut()
        {
            map.remove("status");
        }
        self.apply_kind_defaults(info, &mut object)?;
        if record_fields {
            let api_version = info.api_version();
            let writer = Self::writer(
                info,
                options,
                &api_version,
                &now,
                Scope::Main {
                    status_separate: info.has_status,
                },
            );
            fieldmanager::record_update(None, &mut object, &writer);
        }
        if options.dry_run {
            return Ok(Arc::new(object));
        }
        let is_crd =
            info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions";
        let stored = self.commit(&store_key, key, object);
        if is_crd {
            self.register_crd(&stored)?;
        }
        Ok(stored)
    }

    /// What a real server's defaulting and controllers would fill in immediately.
    pub(super) fn apply_kind_defaults(
        &mut self,
        info: &ResourceInfo,
        object: &mut Value,
    ) -> Result<(), ApiError> {
        match (info.group.as_str(), info.plural.as_str()) {
            ("", "namespaces") => {
                let name = name_of(object).to_string();
                let metadata = metadata_mut(object);
                let labels = metadata.entry("labels").or_insert_with(|| json!({}));
                if let Some(labels) = labels.as_object_mut() {
                    labels.insert("kubernetes.io/metadata.name".into(), json!(name));
                }
                object["spec"] = json!({"finalizers": ["kubernetes"]});
                object["status"] = json!({"phase": "Active"});
            }
            ("apiextensions.k8s.io", "customresourcedefinitions") => {
                let infos = resources_from_crd(object).map_err(|error| {
                    ApiError::invalid(
                        &info.group,
                        &info.kind,
                        name_of(object),
                        vec![cause("FieldValueInvalid", error.field(), error.to_string())],
                    )
                })?;
                let names = &object["spec"]["names"];
                let mut accepted = names.clone();
                if accepted["singular"].is_null() {
                    accepted["singular"] = json!(
                        infos
                            .first()
                            .map(|info| info.singular.clone())
                            .unwrap_or_default()
                    );
                }
                if accepted["listKind"].is_null() {
                    accepted["listKind"] = json!(format!(
                        "{}List",
                        names["kind"].as_str().unwrap_or_default()
                    ));
                }
                let now = now_rfc3339();
                let stored_versions: Vec<Value> = object["spec"]["versions"]
                    .as_array()
                    .map(|versions| {
                        versions
                            .iter()
                            .filter(|version| version["storage"] == json!(true))
                            .map(|version| version["name"].clone())
                            .collect()
                    })
                    .unwrap_or_default();
                object["status"] = json!({
                    "acceptedNames": accepted,
                    "conditions": [
                        {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
                        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now}
                    ],
                    "storedVersions": stored_versions,
                });
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn register_crd(&mut self, crd: &Value) -> Result<(), ApiError> {
        let infos =
            resources_from_crd(crd).map_err(|error| ApiError::internal(error.to_string()))?;
        self.registry.register_crd(name_of(crd), infos);
        Ok(())
    }

    pub(super) fn drop_custom_resources(&mut self, crd: &Value) {
        self.registry.unregister_crd(name_of(crd));
        let store_key = StoreKey {
            group: crd["spec"]["group"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            plural: crd["spec"]["names"]["plural"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        };
        let keys: Vec<ObjectKey> = self
            .collection(&store_key)
            .map(|objects| objects.keys().cloned().collect())
            .unwrap_or_default();
        for key in keys {
            self.remove(&store_key, &key);
        }
    }

    /// Turns a client's proposed object into what gets stored: server-owned metadata restored,
    /// status or spec kept according to `scope`, immutability and generation handled.
    pub(super) fn prepare_update(
        &self,
        info: &ResourceInfo,
        current: &Value,
        mut proposed: Value,
        scope: Scope,
    ) -> Result<Value, ApiError> {
        let name = name_of(current).to_string();
        if scope == Scope::Status {
            let mut updated = current.clone();
            match proposed.get_mut("status").map(Value::take) {
                Some(status) if !status.is_null() => updated["status"] = status,
                _ => {
                    if let Some(map) = updated.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
            if let Some(managed) = proposed["metadata"].get("managedFields") {
                metadata_mut(&mut updated).insert("managedFields".into(), managed.clone());
            }
            return Ok(updated);
        }
        fold_string_data(info, &mut proposed);
        {
            let current_metadata = current["metadata"].as_object().cloned().unwrap_or_default();
            let metadata = metadata_mut(&mut proposed);
            for server_owned in [
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generation",
                "namespace",
                "name",
            ] {
                match current_metadata.get(server_owned) {
                    Some(value) => metadata.insert(server_owned.into(), value.clone()),
                    None => metadata.remove(server_owned),
                };
            }
        }
        if info.has_status {
            match current.get("status") {
                Some(status) => proposed["status"] = status.clone(),
                None => {
                    if let Some(map) = proposed.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
        }
        if info.group.is_empty() && info.plural == "namespaces" {
            proposed["spec"] = current["spec"].clone();
        }
        if is_terminating(current) {
            let before = finalizers_of(current);
            if let Some(added) = finalizers_of(&proposed)
                .into_iter()
                .find(|finalizer| !before.contains(finalizer))
            {
                return Err(ApiError::invalid(
                    &info.group,
                    &info.kind,
                    &name,
                    vec![cause(
                        "FieldValueForbidden",
                        "metadata.finalizers",
                        format!(
                            "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers [{added:?}]"
                        ),
                    )],
                ));
            }
        }
        let mut causes = immutable_field_causes(info, current, &proposed);
        causes.extend(annotations_cause(&proposed));
        if info.group == "apiextensions.k8s.io"
            && info.plural == "customresourcedefinitions"
            && let Err(error) = resources_from_crd(&proposed)
        {
            causes.push(cause("FieldValueInvalid", error.field(), error.to_string()));
        }
        if !causes.is_empty() {
            return Err(ApiError::invalid(&info.group, &info.kind, &name, causes));
        }
        if info.tracks_generation
            && spec_part(current, info.has_status) != spec_part(&proposed, info.has_status)
        {
            let generation = current["metadata"]["generation"].as_i64().unwrap_or(1) + 1;
            metadata_mut(&mut proposed).insert("generation".into(), json!(generation));
        }
        Ok(proposed)
    }

    /// Commits an update unless it changes nothing (a real server then keeps the
    /// resourceVersion and sends no watch event).
    pub(super) fn finish_update(
        &mut self,
        info: &ResourceInfo,
        key: ObjectKey,
        current: &Arc<Value>,
        mut updated: Value,
        options: &WriteOptions,
        scope: Option<Scope>,
    ) -> Result<Arc<Value>, ApiError> {
        if let Some(map) = updated.as_object_mut() {
            map.insert("apiVersion".into(), current["apiVersion"].clone());
        }
        if comparable(&updated) == comparable(current) {
            return Ok(Self::presented(info, current));
        }
        if let Some(scope) = scope {
            let api_version = info.api_version();
            let time = now_rfc3339();
            let writer = Self::writer(info, options, &api_version, &time, scope);
            fieldmanager::record_update(Some(current), &mut updated, &writer);
        }
        if options.dry_run {
            return Ok(Arc::new(updated));
        }
        let store_key = info.store_key();
        let is_crd =
            info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions";
        let stored = self.commit(&store_key, key.clone(), updated);
        if is_crd {
            self.register_crd(&stored)?;
        }
        self.settle(&store_key, &key);
        Ok(Self::presented(info, &stored))
    }

    pub fn update(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        mut body: Value,
        status: bool,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        Self::check_type(info, &mut body)?;
        Self::check_namespace(info, namespace, &mut body)?;
        match body["metadata"]["name"].as_str() {
            Some(given) if given == name => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({given}) does not match the name on the URL ({name})"
                )));
            }
            None => {
                return Err(ApiError::bad_request("metadata.name is required on update"));
            }
        }
        let key = Self::object_key(info, namespace, name);
        let current = self.current(info, &key)?;
        Self::check_resource_version(info, &current, &body)?;
        let scope = if status {
            Scope::Status
        } else {
            Scope::Main {
                status_separate: info.has_status,
            }
        };
        let updated = self.prepare_update(info, &current, body, scope)?;
        self.finish_update(info, key, &current, updated, options, Some(scope))
    }

    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        kind: PatchKind,
        body: &Value,
        status: bool,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        let key = Self::object_key(info, namespace, name);
        let scope = if status {
            Scope::Status
        } else {
            Scope::Main {
                status_separate: info.has_status,
            }
        };
        let current = match kind {
            PatchKind::Apply => {
                return self.server_side_apply(info, namespace, name, body, scope, options);
            }
            _ => self.current(info, &key)?,
        };
        let patched = match kind {
            PatchKind::Merge => patch::merge_patch(&current, body),
            PatchKind::Json => patch::json_patch(&current, body)
                .map_err(|error| ApiError::new(422, "Invalid", error.to_string()))?,
            PatchKind::Strategic if info.builtin => patch::strategic_merge(&current, body)
                .map_err(|error| ApiError::bad_request(error.to_string()))?,
            PatchKind::Strategic | PatchKind::Apply => {
                return Err(ApiError::unsupported_media_type(
                    patch::PatchError::UnknownFormat.to_string(),
                ));
            }
        };
        let mut patched = patched;
        if !patched.is_object() {
            return Err(ApiError::bad_request("the patch did not produce an object"));
        }
        Self::check_resource_version(info, &current, &patched)?;
        if name_of(&patched) != name {
            return Err(ApiError::bad_request(
                "metadata.name cannot be changed by a patch",
            ));
        }
        Self::check_type(info, &mut patched)?;
        let updated = self.prepare_update(info, &current, patched, scope)?;
        self.finish_update(info, key, &current, updated, options, Some(scope))
    }

    pub(super) fn server_side_apply(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        body: &Value,
        scope: Scope,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        if options.field_manager.is_empty() {
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "PatchOptions",
                "",
                vec![cause(
                    "FieldValueRequired",
                    "fieldManager",
                    "Required value: is required for apply patch",
                )],
            ));
        }
        let mut applied = body.clone();
        if applied["apiVersion"].is_null() || applied["kind"].is_null() {
            return Err(ApiError::bad_request(
                "apiVersion and kind must be set in an apply patch",
            ));
        }
        Self::check_type(info, &mut applied)?;
        match applied["metadata"]["name"].as_str() {
            Some(given) if given == name => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({given}) does not match the name on the URL ({name})"
                )));
            }
            None => {
                metadata_mut(&mut applied).insert("name".into(), json!(name));
            }
        }
        Self::check_namespace(info, namespace, &mut applied)?;
        let key = Self::object_key(info, namespace, name);
        let api_version = info.api_version();
        let time = now_rfc3339();
        let writer = Self::writer(info, options, &api_version, &time, scope);
        let conflict_error = |error: ApplyError| {
            let ApplyError::Conflicts(conflicts) = &error;
            let causes = conflicts
                .iter()
                .map(|conflict| {
                    cause(
                        "FieldManagerConflict",
                        &conflict.field,
                        format!(
                            "conflict with \"{}\" using {}",
                            conflict.manager, conflict.api_version
                        ),
                    )
                })
                .collect();
            let mut api_error =
                ApiError::conflict(&info.group, &info.plural, name, "").with_causes(causes);
            api_error.message = error.to_string();
            api_error
        };
        let existing = self
            .collection(&info.store_key())
            .and_then(|objects| objects.get(&key))
            .cloned();
        match existing {
            None => {
                if scope == Scope::Status {
                    return Err(ApiError::not_found(&info.group, &info.plural, name));
                }
                let mut skeleton = json!({"apiVersion": api_version, "kind": info.kind, "metadata": {"name": name}});
                if info.namespaced {
                    skeleton["metadata"]["namespace"] = json!(namespace.unwrap_or_default());
                }
                let merged = fieldmanager::apply(&skeleton, &applied, &writer, options.force)
                    .map_err(conflict_error)?;
                self.create_inner(info, namespace, merged, options, false)
            }
            Some(current) => {
                Self::check_resource_version(info, &current, &applied)?;
                let merged = fieldmanager::apply(&current, &applied, &writer, options.force)
                    .map_err(conflict_error)?;
                let updated = self.prepare_update(info, &current, merged, scope)?;
                self.finish_update(info, key, &current, updated, options, None)
            }
        }
    }
}
